package resp

var cmdGet = def("get", 2, "readonly fast", 1, 1, 1, "read string fast", "string", "1.0.0",
	"Returns the string value of a key.", "O(1)", func(x *cmdCtx) error {
		v, ok, err := x.tx.Get(x.args[1])
		if err != nil {
			return err
		}
		bulkOrNull(x.w, v, ok)
		return nil
	})
