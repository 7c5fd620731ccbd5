package resp

var cmdLLen = def("llen", 2, "readonly fast", 1, 1, 1, "read list fast", "list", "1.0.0",
	"Returns the length of a list.", "O(1)", func(x *cmdCtx) error {
		n, err := x.tx.LLen(x.args[1])
		if err != nil {
			return err
		}
		x.w.Int(n)
		return nil
	})
