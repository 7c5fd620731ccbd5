package resp

var cmdShutdown = def(cmdSpec{
	Name: "shutdown", Arity: -1, Flags: "admin noscript loading stale no_multi allow_busy",
	ACL: "admin slow dangerous", Group: "server", Since: "1.0.0",
	Summary:    "Synchronously saves the database(s) to disk and shuts down the Redis server.",
	Complexity: "O(N) when saving, where N is the total number of keys in all databases when saving data, otherwise O(1)",
	Handler:    shutdown,
})

// shutdown is SHUTDOWN [NOSAVE|SAVE] [NOW] [FORCE] [ABORT]. mayfly never
// waits for replicas, so there is never a shutdown in progress to ABORT,
// and NOW and FORCE change nothing. Unless NOSAVE, it saves (saveNow);
// then it asks the server to stop as SIGTERM does and closes the
// connection without a reply, as Redis exits without one.
func shutdown(x *cmdCtx) error {
	var save, nosave, abort, other bool
	for _, a := range x.args[1:] {
		switch {
		case argEq(a, "nosave"):
			nosave = true
		case argEq(a, "save"):
			save = true
		case argEq(a, "now"), argEq(a, "force"):
			other = true
		case argEq(a, "abort"):
			abort = true
		default:
			return errSyntax
		}
	}
	if (abort && (save || nosave || other)) || (save && nosave) {
		return errSyntax
	}
	if abort {
		return replyErr("ERR No shutdown in progress.")
	}
	if x.s.opts.Shutdown == nil {
		return replyErr("ERR Errors trying to SHUTDOWN. Check logs.")
	}
	if !nosave {
		if err := saveNow(x); err != nil {
			x.s.log.Error("resp: SHUTDOWN could not sync the storage", "err", err)
			return replyErr("ERR Errors trying to SHUTDOWN. Check logs.")
		}
	}
	x.s.log.Info("resp: SHUTDOWN requested", "client", x.c.id)
	if nosave {
		// SHUTDOWN NOSAVE is what stops a busy script that wrote: its
		// writes are rolled back.
		x.s.stopScript()
	}
	x.s.opts.Shutdown()
	x.c.closeNext = true
	return nil
}
