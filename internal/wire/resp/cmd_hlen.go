package resp

var cmdHLen = def("hlen", 2, "readonly fast", 1, 1, 1, "read hash fast", "hash", "2.0.0",
	"Returns the number of fields in a hash.", "O(1)", func(x *cmdCtx) error {
		n, err := x.tx.HLen(x.args[1])
		if err != nil {
			return err
		}
		x.w.Int(n)
		return nil
	})
