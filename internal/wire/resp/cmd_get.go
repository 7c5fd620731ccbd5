package resp

var cmdGet = def(cmdSpec{
	Name: "get", Arity: 2, Flags: "readonly fast", FirstKey: 1, LastKey: 1, Step: 1,
	ACL: "read string fast", Group: "string", Since: "1.0.0",
	Summary:    "Returns the string value of a key.",
	Complexity: "O(1)",
	Handler: func(x *cmdCtx) error {
		v, ok, err := x.tx.Get(x.args[1])
		if err != nil {
			return err
		}
		bulkOrNull(x.w, v, ok)
		return nil
	},
})
