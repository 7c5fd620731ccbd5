package resp

var cmdSAdd = def(cmdSpec{
	Name: "sadd", Arity: -3, Flags: "write denyoom fast", FirstKey: 1, LastKey: 1, Step: 1,
	ACL: "write set fast", Group: "set", Since: "1.0.0",
	Summary:    "Adds one or more members to a set. Creates the key if it doesn't exist.",
	Complexity: "O(1) for each element added, so O(N) to add N elements when the command is called with multiple arguments.",
	Handler: func(x *cmdCtx) error {
		n, err := x.tx.SAdd(x.args[1], x.args[2:])
		if err != nil {
			return err
		}
		x.w.Int(n)
		return nil
	},
})
