package resp

var cmdType = def("type", 2, "readonly fast", 1, 1, 1, "keyspace read fast", "generic", "1.0.0",
	"Determines the type of value stored at a key.", "O(1)", func(x *cmdCtx) error {
		t, err := x.tx.Type(x.args[1])
		if err != nil {
			return err
		}
		x.w.Simple(t.String())
		return nil
	})
