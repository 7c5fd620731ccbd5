package resp

var cmdHDel = def(cmdSpec{
	Name: "hdel", Arity: -3, Flags: "write fast", FirstKey: 1, LastKey: 1, Step: 1,
	ACL: "write hash fast", Group: "hash", Since: "2.0.0",
	Summary:    "Deletes one or more fields and their values from a hash. Deletes the hash if no fields remain.",
	Complexity: "O(N) where N is the number of fields to be removed.",
	Handler: func(x *cmdCtx) error {
		n, err := x.tx.HDel(x.args[1], x.args[2:])
		if err != nil {
			return err
		}
		x.w.Int(n)
		return nil
	},
})
