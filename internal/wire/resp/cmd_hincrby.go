package resp

var cmdHIncrBy = def("hincrby", 4, "write denyoom fast", 1, 1, 1, "write hash fast", "hash", "2.0.0",
	"Increments the integer value of a field in a hash by a number. Uses 0 as initial value if the field doesn't exist.",
	"O(1)", func(x *cmdCtx) error {
		d, err := parseInt(x.args[3])
		if err != nil {
			return err
		}
		n, err := x.tx.HIncrBy(x.args[1], x.args[2], d)
		if err != nil {
			return collErr(err)
		}
		x.w.Int(n)
		return nil
	})
