package resp

var cmdMGet = def("mget", -2, "readonly fast", 1, -1, 1, "read string fast", "string", "1.0.0",
	"Atomically returns the string values of one or more keys.", "O(N) where N is the number of keys to retrieve.",
	func(x *cmdCtx) error {
		vals, err := x.tx.MGet(x.args[1:])
		if err != nil {
			return err
		}
		x.w.Array(len(vals))
		for _, v := range vals {
			bulkOrNull(x.w, v, v != nil)
		}
		return nil
	})
