package resp

var cmdHExists = def(cmdSpec{
	Name: "hexists", Arity: 3, Flags: "readonly fast", FirstKey: 1, LastKey: 1, Step: 1,
	ACL: "read hash fast", Group: "hash", Since: "2.0.0",
	Summary:    "Determines whether a field exists in a hash.",
	Complexity: "O(1)",
	Handler: func(x *cmdCtx) error {
		ok, err := x.tx.HExists(x.args[1], x.args[2])
		if err != nil {
			return err
		}
		x.w.Bool2(ok)
		return nil
	},
})
