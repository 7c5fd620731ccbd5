package resp

var cmdKeys = def("keys", 2, "readonly", 0, 0, 0, "keyspace read slow dangerous", "generic", "1.0.0",
	"Returns all key names that match a pattern.",
	"O(N) with N being the number of keys in the database, under the assumption that the key names in the database and the given pattern have limited length.",
	func(x *cmdCtx) error {
		keys, err := x.tx.Keys(x.args[1])
		if err != nil {
			return err
		}
		x.w.Array(len(keys))
		for _, k := range keys {
			x.w.Bulk(k)
		}
		return nil
	})
