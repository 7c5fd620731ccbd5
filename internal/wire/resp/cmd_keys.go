package resp

var cmdKeys = def(cmdSpec{
	Name: "keys", Arity: 2, Flags: "readonly",
	ACL: "keyspace read slow dangerous", Group: "generic", Since: "1.0.0",
	Summary:    "Returns all key names that match a pattern.",
	Complexity: "O(N) with N being the number of keys in the database, under the assumption that the key names in the database and the given pattern have limited length.",
	Handler: func(x *cmdCtx) error {
		keys, err := x.tx.Keys(x.args[1])
		if err != nil {
			return err
		}
		x.w.Array(len(keys))
		for _, k := range keys {
			x.w.Bulk(k)
		}
		return nil
	},
})
