package resp

var cmdHMGet = def(cmdSpec{
	Name: "hmget", Arity: -3, Flags: "readonly fast", FirstKey: 1, LastKey: 1, Step: 1,
	ACL: "read hash fast", Group: "hash", Since: "2.0.0",
	Summary:    "Returns the values of all fields in a hash.",
	Complexity: "O(N) where N is the number of fields being requested.",
	Handler: func(x *cmdCtx) error {
		vals, err := x.tx.HMGet(x.args[1], x.args[2:])
		if err != nil {
			return err
		}
		writeBulksOrNull(x.w, vals)
		return nil
	},
})
