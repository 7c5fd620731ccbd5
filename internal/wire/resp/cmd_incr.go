package resp

var cmdIncr = def("incr", 2, "write denyoom fast", 1, 1, 1, "write string fast", "string", "1.0.0",
	"Increments the integer value of a key by one. Uses 0 as initial value if the key doesn't exist.", "O(1)", func(x *cmdCtx) error {
		d := int64(1)
		n, err := x.tx.IncrBy(x.args[1], d)
		if err != nil {
			return err
		}
		x.w.Int(n)
		return nil
	})
