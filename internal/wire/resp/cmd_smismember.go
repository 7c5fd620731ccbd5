package resp

var cmdSMIsMember = def(cmdSpec{
	Name: "smismember", Arity: -3, Flags: "readonly fast", FirstKey: 1, LastKey: 1, Step: 1,
	ACL: "read set fast", Group: "set", Since: "6.2.0",
	Summary:    "Determines whether multiple members belong to a set.",
	Complexity: "O(N) where N is the number of elements being checked for membership",
	Handler: func(x *cmdCtx) error {
		got, err := x.tx.SIsMember(x.args[1], x.args[2:])
		if err != nil {
			return err
		}
		x.w.Array(len(got))
		for _, ok := range got {
			x.w.Bool2(ok)
		}
		return nil
	},
})
