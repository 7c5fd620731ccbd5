package resp

var cmdDBSize = def("dbsize", 1, "readonly fast", 0, 0, 0, "keyspace read fast", "server", "1.0.0",
	"Returns the number of keys in the database.", "O(1)", func(x *cmdCtx) error {
		n, err := x.tx.DBSize()
		if err != nil {
			return err
		}
		x.w.Int(n)
		return nil
	})
