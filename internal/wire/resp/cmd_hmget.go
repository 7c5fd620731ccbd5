package resp

var cmdHMGet = def("hmget", -3, "readonly fast", 1, 1, 1, "read hash fast", "hash", "2.0.0",
	"Returns the values of all fields in a hash.", "O(N) where N is the number of fields being requested.",
	func(x *cmdCtx) error {
		vals, err := x.tx.HMGet(x.args[1], x.args[2:])
		if err != nil {
			return err
		}
		writeBulksOrNull(x.w, vals)
		return nil
	})
