package resp

var cmdRandomKey = def("randomkey", 1, "readonly", 0, 0, 0, "keyspace read slow", "generic", "1.0.0",
	"Returns a random key name from the database.", "O(1)", func(x *cmdCtx) error {
		k, ok, err := x.tx.RandomKey()
		if err != nil {
			return err
		}
		bulkOrNull(x.w, k, ok)
		return nil
	})
