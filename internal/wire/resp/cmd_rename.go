package resp

var cmdRename = def("rename", 3, "write", 1, 2, 1, "keyspace write slow", "generic", "1.0.0",
	"Renames a key and overwrites the destination.", "O(1)", func(x *cmdCtx) error {
		if _, err := x.tx.Rename(x.args[1], x.args[2], false); err != nil {
			return err
		}
		serveBlocked(x, x.args[2])
		x.w.OK()
		return nil
	})
