package resp

var cmdSIsMember = def(cmdSpec{
	Name: "sismember", Arity: 3, Flags: "readonly fast", FirstKey: 1, LastKey: 1, Step: 1,
	ACL: "read set fast", Group: "set", Since: "1.0.0",
	Summary:    "Determines whether a member belongs to a set.",
	Complexity: "O(1)",
	Handler: func(x *cmdCtx) error {
		got, err := x.tx.SIsMember(x.args[1], x.args[2:3])
		if err != nil {
			return err
		}
		x.w.Bool2(got[0])
		return nil
	},
})
