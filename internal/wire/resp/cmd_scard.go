package resp

var cmdSCard = def(cmdSpec{
	Name: "scard", Arity: 2, Flags: "readonly fast", FirstKey: 1, LastKey: 1, Step: 1,
	ACL: "read set fast", Group: "set", Since: "1.0.0",
	Summary:    "Returns the number of members in a set.",
	Complexity: "O(1)",
	Handler: func(x *cmdCtx) error {
		n, err := x.tx.SCard(x.args[1])
		if err != nil {
			return err
		}
		x.w.Int(n)
		return nil
	},
})
