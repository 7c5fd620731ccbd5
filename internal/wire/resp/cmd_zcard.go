package resp

var cmdZCard = def("zcard", 2, "readonly fast", 1, 1, 1, "read sortedset fast", "sorted-set", "1.2.0",
	"Returns the number of members in a sorted set.", "O(1)", func(x *cmdCtx) error {
		n, err := x.tx.ZCard(x.args[1])
		if err != nil {
			return err
		}
		x.w.Int(n)
		return nil
	})
