package resp

var cmdIncrBy = def(cmdSpec{
	Name: "incrby", Arity: 3, Flags: "write denyoom fast", FirstKey: 1, LastKey: 1, Step: 1,
	ACL: "write string fast", Group: "string", Since: "1.0.0",
	Summary:    "Increments the integer value of a key by a number. Uses 0 as initial value if the key doesn't exist.",
	Complexity: "O(1)",
	Handler: func(x *cmdCtx) error {
		d, err := parseInt(x.args[2])
		if err != nil {
			return err
		}
		n, err := x.tx.IncrBy(x.args[1], d)
		if err != nil {
			return err
		}
		x.w.Int(n)
		return nil
	},
})
