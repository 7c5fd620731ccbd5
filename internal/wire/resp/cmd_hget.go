package resp

var cmdHGet = def("hget", 3, "readonly fast", 1, 1, 1, "read hash fast", "hash", "2.0.0",
	"Returns the value of a field in a hash.", "O(1)", func(x *cmdCtx) error {
		v, ok, err := x.tx.HGet(x.args[1], x.args[2])
		if err != nil {
			return err
		}
		bulkOrNull(x.w, v, ok)
		return nil
	})
