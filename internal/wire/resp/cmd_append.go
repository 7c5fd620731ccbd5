package resp

var cmdAppend = def(cmdSpec{
	Name: "append", Arity: 3, Flags: "write denyoom fast", FirstKey: 1, LastKey: 1, Step: 1,
	ACL: "write string fast", Group: "string", Since: "2.0.0",
	Summary:    "Appends a string to the value of a key. Creates the key if it doesn't exist.",
	Complexity: "O(1).",
	Handler: func(x *cmdCtx) error {
		n, err := x.tx.Append(x.args[1], x.args[2])
		if err != nil {
			return err
		}
		x.w.Int(n)
		return nil
	},
})
