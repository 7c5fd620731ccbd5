package resp

var cmdHDel = def("hdel", -3, "write fast", 1, 1, 1, "write hash fast", "hash", "2.0.0",
	"Deletes one or more fields and their values from a hash. Deletes the hash if no fields remain.",
	"O(N) where N is the number of fields to be removed.", func(x *cmdCtx) error {
		n, err := x.tx.HDel(x.args[1], x.args[2:])
		if err != nil {
			return err
		}
		x.w.Int(n)
		return nil
	})
