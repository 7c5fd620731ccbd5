package resp

var cmdZScore = def(cmdSpec{
	Name: "zscore", Arity: 3, Flags: "readonly fast", FirstKey: 1, LastKey: 1, Step: 1,
	ACL: "read sortedset fast", Group: "sorted-set", Since: "1.2.0",
	Summary:    "Returns the score of a member in a sorted set.",
	Complexity: "O(1)",
	Handler: func(x *cmdCtx) error {
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
	},
})
