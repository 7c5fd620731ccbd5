package resp

var cmdZCard = def(cmdSpec{
	Name: "zcard", Arity: 2, Flags: "readonly fast", FirstKey: 1, LastKey: 1, Step: 1,
	ACL: "read sortedset fast", Group: "sorted-set", Since: "1.2.0",
	Summary:    "Returns the number of members in a sorted set.",
	Complexity: "O(1)",
	Handler: func(x *cmdCtx) error {
		n, err := x.tx.ZCard(x.args[1])
		if err != nil {
			return err
		}
		x.w.Int(n)
		return nil
	},
})
