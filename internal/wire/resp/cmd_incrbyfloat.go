package resp

var cmdIncrByFloat = def("incrbyfloat", 3, "write denyoom fast", 1, 1, 1, "write string fast", "string", "2.6.0",
	"Increment the floating point value of a key by a number. Uses 0 as initial value if the key doesn't exist.", "O(1)",
	func(x *cmdCtx) error {
		v, err := x.tx.IncrByFloat(x.args[1], x.args[2])
		if err != nil {
			return err
		}
		x.w.Bulk(v)
		return nil
	})
