package resp

// BGREWRITEAOF syncs the storage's log, as SAVE does: mayfly's log is
// its only file of writes, always compact, so there is nothing to rewrite.
// It answers as Redis does once its rewrite has started.
var cmdBGRewriteAOF = def(cmdSpec{
	Name: "bgrewriteaof", Arity: 1, Flags: "admin noscript no_async_loading",
	ACL: "admin slow dangerous", Group: "server", Since: "1.0.0",
	Summary:    "Asynchronously rewrite the append-only file",
	Complexity: "O(1)",
	Handler: func(x *cmdCtx) error {
		if inExec(x) {
			x.w.Simple("Background append only file rewriting scheduled")
			return nil
		}
		if err := saveNow(x); err != nil {
			return err
		}
		x.w.Simple("Background append only file rewriting started")
		return nil
	},
})
