package resp

var cmdIncrBy = def("incrby", 3, "write denyoom fast", 1, 1, 1, "write string fast", "string", "1.0.0",
	"Increments the integer value of a key by a number. Uses 0 as initial value if the key doesn't exist.", "O(1)", func(x *cmdCtx) error {
		d, err := parseInt(x.args[2])
		if err != nil {
			return err
		}
		n, err := x.tx.IncrBy(x.args[1], d)
		if err != nil {
			return err
		}
		x.w.Int(n)
		return nil
	})
