package resp

var cmdBGSave = def(cmdSpec{
	Name: "bgsave", Arity: -1, Flags: "admin noscript no_async_loading",
	ACL: "admin slow dangerous", Group: "server", Since: "1.0.0",
	Summary:    "Asynchronously saves the database(s) to disk.",
	Complexity: "O(1)",
	Handler:    bgsave,
})

// bgsave is BGSAVE [SCHEDULE]. It saves as SAVE does (saveNow, a sync of
// the log, which needs no background process) and answers as Redis does
// once its background save has started. Inside EXEC, where Redis schedules
// the save for after the transaction, it answers "scheduled" and the
// transaction's writes reach the disk with the log's next sync.
func bgsave(x *cmdCtx) error {
	if len(x.args) > 2 || (len(x.args) == 2 && !argEq(x.args[1], "schedule")) {
		return errSyntax
	}
	if inExec(x) {
		x.w.Simple("Background saving scheduled")
		return nil
	}
	if err := saveNow(x); err != nil {
		return err
	}
	x.w.Simple("Background saving started")
	return nil
}
