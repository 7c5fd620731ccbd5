package resp

var cmdHSetNX = def(cmdSpec{
	Name: "hsetnx", Arity: 4, Flags: "write denyoom fast", FirstKey: 1, LastKey: 1, Step: 1,
	ACL: "write hash fast", Group: "hash", Since: "2.0.0",
	Summary:    "Sets the value of a field in a hash only when the field doesn't exist.",
	Complexity: "O(1)",
	Handler: func(x *cmdCtx) error {
		ok, err := x.tx.HSetNX(x.args[1], x.args[2], x.args[3])
		if err != nil {
			return err
		}
		x.w.Bool2(ok)
		return nil
	},
})
