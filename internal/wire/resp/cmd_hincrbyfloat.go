package resp

var cmdHIncrByFloat = def("hincrbyfloat", 4, "write denyoom fast", 1, 1, 1, "write hash fast", "hash", "2.6.0",
	"Increments the floating point value of a field by a number. Uses 0 as initial value if the field doesn't exist.",
	"O(1)", func(x *cmdCtx) error {
		v, err := x.tx.HIncrByFloat(x.args[1], x.args[2], x.args[3])
		if err != nil {
			return collErr(err)
		}
		x.w.Bulk(v)
		return nil
	})
