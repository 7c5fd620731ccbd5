package resp

var cmdZScore = def("zscore", 3, "readonly fast", 1, 1, 1, "read sortedset fast", "sorted-set", "1.2.0",
	"Returns the score of a member in a sorted set.", "O(1)", func(x *cmdCtx) error {
		s, ok, err := x.tx.ZScore(x.args[1], x.args[2])
		if err != nil {
			return err
		}
		if !ok {
			x.w.Null()
			return nil
		}
		x.w.Double(s)
		return nil
	})
