package resp

var cmdTouch = def(cmdSpec{
	Name: "touch", Arity: -2, Flags: "readonly fast", FirstKey: 1, LastKey: -1, Step: 1,
	ACL: "keyspace read fast", Group: "generic", Since: "3.2.1",
	Summary:    "Returns the number of existing keys out of those specified after updating the time they were last accessed.",
	Complexity: "O(N) where N is the number of keys that will be touched.",
	Handler: func(x *cmdCtx) error {
		n, err := x.tx.Touch(x.args[1:])
		if err != nil {
			return err
		}
		x.w.Int(n)
		return nil
	},
})
