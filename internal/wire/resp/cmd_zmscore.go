package resp

var cmdZMScore = def("zmscore", -3, "readonly fast", 1, 1, 1, "read sortedset fast", "sorted-set", "6.2.0",
	"Returns the score of one or more members in a sorted set.", "O(N) where N is the number of members being requested.",
	func(x *cmdCtx) error {
		scores, oks, err := x.tx.ZMScore(x.args[1], x.args[2:])
		if err != nil {
			return err
		}
		x.w.Array(len(scores))
		for i, s := range scores {
			if !oks[i] {
				x.w.Null()
				continue
			}
			x.w.Double(s)
		}
		return nil
	})
