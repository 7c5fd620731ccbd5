package resp

var cmdType = def(cmdSpec{
	Name: "type", Arity: 2, Flags: "readonly fast", FirstKey: 1, LastKey: 1, Step: 1,
	ACL: "keyspace read fast", Group: "generic", Since: "1.0.0",
	Summary:    "Determines the type of value stored at a key.",
	Complexity: "O(1)",
	Handler: func(x *cmdCtx) error {
		t, err := x.tx.Type(x.args[1])
		if err != nil {
			return err
		}
		x.w.Simple(t.String())
		return nil
	},
})
