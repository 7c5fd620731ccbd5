package resp

var cmdFlushDB = def("flushdb", -1, "write", 0, 0, 0, "keyspace write slow dangerous", "server", "1.0.0",
	"Remove all keys from the current database.", "O(N) where N is the number of keys in the selected database",
	func(x *cmdCtx) error {
		if err := flushMode(x); err != nil {
			return err
		}
		if err := x.s.watches.touchVisible(x.tx, x.c.db); err != nil {
			return err
		}
		if err := x.tx.FlushDB(); err != nil {
			return err
		}
		x.w.OK()
		return nil
	})

// flushMode checks the optional ASYNC|SYNC argument; both are the same
// here, since a flush is a few range deletions either way.
func flushMode(x *cmdCtx) error {
	if len(x.args) > 2 || (len(x.args) == 2 && !argEq(x.args[1], "async") && !argEq(x.args[1], "sync")) {
		return errSyntax
	}
	return nil
}
