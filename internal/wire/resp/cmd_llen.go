package resp

var cmdLLen = def(cmdSpec{
	Name: "llen", Arity: 2, Flags: "readonly fast", FirstKey: 1, LastKey: 1, Step: 1,
	ACL: "read list fast", Group: "list", Since: "1.0.0",
	Summary:    "Returns the length of a list.",
	Complexity: "O(1)",
	Handler: func(x *cmdCtx) error {
		n, err := x.tx.LLen(x.args[1])
		if err != nil {
			return err
		}
		x.w.Int(n)
		return nil
	},
})
