package resp

var cmdRandomKey = def(cmdSpec{
	Name: "randomkey", Arity: 1, Flags: "readonly",
	ACL: "keyspace read slow", Group: "generic", Since: "1.0.0",
	Summary:    "Returns a random key name from the database.",
	Complexity: "O(1)",
	Handler: func(x *cmdCtx) error {
		k, ok, err := x.tx.RandomKey()
		if err != nil {
			return err
		}
		bulkOrNull(x.w, k, ok)
		return nil
	},
})
