package resp

var cmdStrLen = def(cmdSpec{
	Name: "strlen", Arity: 2, Flags: "readonly fast", FirstKey: 1, LastKey: 1, Step: 1,
	ACL: "read string fast", Group: "string", Since: "2.2.0",
	Summary:    "Returns the length of a string value.",
	Complexity: "O(1)",
	Handler: func(x *cmdCtx) error {
		n, err := x.tx.StrLen(x.args[1])
		if err != nil {
			return err
		}
		x.w.Int(n)
		return nil
	},
})
