package resp

var cmdSCard = def("scard", 2, "readonly fast", 1, 1, 1, "read set fast", "set", "1.0.0",
	"Returns the number of members in a set.", "O(1)", func(x *cmdCtx) error {
		n, err := x.tx.SCard(x.args[1])
		if err != nil {
			return err
		}
		x.w.Int(n)
		return nil
	})
