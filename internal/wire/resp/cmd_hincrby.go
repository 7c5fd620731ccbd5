package resp

var cmdHIncrBy = def(cmdSpec{
	Name: "hincrby", Arity: 4, Flags: "write denyoom fast", FirstKey: 1, LastKey: 1, Step: 1,
	ACL: "write hash fast", Group: "hash", Since: "2.0.0",
	Summary:    "Increments the integer value of a field in a hash by a number. Uses 0 as initial value if the field doesn't exist.",
	Complexity: "O(1)",
	Handler: func(x *cmdCtx) error {
		d, err := parseInt(x.args[3])
		if err != nil {
			return err
		}
		n, err := x.tx.HIncrBy(x.args[1], x.args[2], d)
		if err != nil {
			return err
		}
		x.w.Int(n)
		return nil
	},
})
