package resp

var cmdZMScore = def(cmdSpec{
	Name: "zmscore", Arity: -3, Flags: "readonly fast", FirstKey: 1, LastKey: 1, Step: 1,
	ACL: "read sortedset fast", Group: "sorted-set", Since: "6.2.0",
	Summary:    "Returns the score of one or more members in a sorted set.",
	Complexity: "O(N) where N is the number of members being requested.",
	Handler: func(x *cmdCtx) error {
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
	},
})
