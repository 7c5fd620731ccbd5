package resp

var cmdHExists = def("hexists", 3, "readonly fast", 1, 1, 1, "read hash fast", "hash", "2.0.0",
	"Determines whether a field exists in a hash.", "O(1)", func(x *cmdCtx) error {
		ok, err := x.tx.HExists(x.args[1], x.args[2])
		if err != nil {
			return err
		}
		x.w.Bool2(ok)
		return nil
	})
