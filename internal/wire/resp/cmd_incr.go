package resp

var cmdIncr = def(cmdSpec{
	Name: "incr", Arity: 2, Flags: "write denyoom fast", FirstKey: 1, LastKey: 1, Step: 1,
	ACL: "write string fast", Group: "string", Since: "1.0.0",
	Summary:    "Increments the integer value of a key by one. Uses 0 as initial value if the key doesn't exist.",
	Complexity: "O(1)",
	Handler: func(x *cmdCtx) error {
		d := int64(1)
		n, err := x.tx.IncrBy(x.args[1], d)
		if err != nil {
			return err
		}
		x.w.Int(n)
		return nil
	},
})
