package resp

var cmdIncrByFloat = def(cmdSpec{
	Name: "incrbyfloat", Arity: 3, Flags: "write denyoom fast", FirstKey: 1, LastKey: 1, Step: 1,
	ACL: "write string fast", Group: "string", Since: "2.6.0",
	Summary:    "Increment the floating point value of a key by a number. Uses 0 as initial value if the key doesn't exist.",
	Complexity: "O(1)",
	Handler: func(x *cmdCtx) error {
		v, err := x.tx.IncrByFloat(x.args[1], x.args[2])
		if err != nil {
			return err
		}
		x.w.Bulk(v)
		return nil
	},
})
