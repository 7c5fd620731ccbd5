package resp

var cmdHIncrByFloat = def(cmdSpec{
	Name: "hincrbyfloat", Arity: 4, Flags: "write denyoom fast", FirstKey: 1, LastKey: 1, Step: 1,
	ACL: "write hash fast", Group: "hash", Since: "2.6.0",
	Summary:    "Increments the floating point value of a field by a number. Uses 0 as initial value if the field doesn't exist.",
	Complexity: "O(1)",
	Handler: func(x *cmdCtx) error {
		v, err := x.tx.HIncrByFloat(x.args[1], x.args[2], x.args[3])
		if err != nil {
			return err
		}
		x.w.Bulk(v)
		return nil
	},
})
