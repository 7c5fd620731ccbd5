package resp

var cmdSetRange = def(cmdSpec{
	Name: "setrange", Arity: 4, Flags: "write denyoom", FirstKey: 1, LastKey: 1, Step: 1,
	ACL: "write string slow", Group: "string", Since: "2.2.0",
	Summary:    "Overwrites a part of a string value with another by an offset. Creates the key if it doesn't exist.",
	Complexity: "O(1)",
	Handler: func(x *cmdCtx) error {
		off, err := parseInt(x.args[2])
		if err != nil {
			return err
		}
		n, err := x.tx.SetRange(x.args[1], off, x.args[3])
		if err != nil {
			return err
		}
		x.w.Int(n)
		return nil
	},
})
