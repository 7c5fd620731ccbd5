package resp

var cmdHSetNX = def("hsetnx", 4, "write denyoom fast", 1, 1, 1, "write hash fast", "hash", "2.0.0",
	"Sets the value of a field in a hash only when the field doesn't exist.", "O(1)", func(x *cmdCtx) error {
		ok, err := x.tx.HSetNX(x.args[1], x.args[2], x.args[3])
		if err != nil {
			return err
		}
		x.w.Bool2(ok)
		return nil
	})
