package resp

var cmdRenameNX = def("renamenx", 3, "write fast", 1, 2, 1, "keyspace write fast", "generic", "1.0.0",
	"Renames a key only when the target key name doesn't exist.", "O(1)", func(x *cmdCtx) error {
		ok, err := x.tx.Rename(x.args[1], x.args[2], true)
		if err != nil {
			return err
		}
		if ok {
			serveBlocked(x, x.args[2])
		}
		x.w.Bool2(ok)
		return nil
	})
