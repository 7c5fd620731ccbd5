package resp

var cmdSRem = def(cmdSpec{
	Name: "srem", Arity: -3, Flags: "write fast", FirstKey: 1, LastKey: 1, Step: 1,
	ACL: "write set fast", Group: "set", Since: "1.0.0",
	Summary:    "Removes one or more members from a set. Deletes the set if the last member was removed.",
	Complexity: "O(N) where N is the number of members to be removed.",
	Handler: func(x *cmdCtx) error {
		n, err := x.tx.SRem(x.args[1], x.args[2:])
		if err != nil {
			return err
		}
		x.w.Int(n)
		return nil
	},
})
