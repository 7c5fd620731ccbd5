package resp

var cmdHLen = def(cmdSpec{
	Name: "hlen", Arity: 2, Flags: "readonly fast", FirstKey: 1, LastKey: 1, Step: 1,
	ACL: "read hash fast", Group: "hash", Since: "2.0.0",
	Summary:    "Returns the number of fields in a hash.",
	Complexity: "O(1)",
	Handler: func(x *cmdCtx) error {
		n, err := x.tx.HLen(x.args[1])
		if err != nil {
			return err
		}
		x.w.Int(n)
		return nil
	},
})
