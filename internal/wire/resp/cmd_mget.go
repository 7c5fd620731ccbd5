package resp

var cmdMGet = def(cmdSpec{
	Name: "mget", Arity: -2, Flags: "readonly fast", FirstKey: 1, LastKey: -1, Step: 1,
	ACL: "read string fast", Group: "string", Since: "1.0.0",
	Summary:    "Atomically returns the string values of one or more keys.",
	Complexity: "O(N) where N is the number of keys to retrieve.",
	Handler: func(x *cmdCtx) error {
		vals, err := x.tx.MGet(x.args[1:])
		if err != nil {
			return err
		}
		x.w.Array(len(vals))
		for _, v := range vals {
			bulkOrNull(x.w, v, v != nil)
		}
		return nil
	},
})
