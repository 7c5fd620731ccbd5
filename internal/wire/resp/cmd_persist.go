package resp

var cmdPersist = def("persist", 2, "write fast", 1, 1, 1, "keyspace write fast", "generic", "2.2.0",
	"Removes the expiration time of a key.", "O(1)", func(x *cmdCtx) error {
		ok, err := x.tx.Persist(x.args[1])
		if err != nil {
			return err
		}
		x.w.Bool2(ok)
		return nil
	})
