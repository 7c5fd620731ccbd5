package resp

var cmdHGet = def(cmdSpec{
	Name: "hget", Arity: 3, Flags: "readonly fast", FirstKey: 1, LastKey: 1, Step: 1,
	ACL: "read hash fast", Group: "hash", Since: "2.0.0",
	Summary:    "Returns the value of a field in a hash.",
	Complexity: "O(1)",
	Handler: func(x *cmdCtx) error {
		v, ok, err := x.tx.HGet(x.args[1], x.args[2])
		if err != nil {
			return err
		}
		bulkOrNull(x.w, v, ok)
		return nil
	},
})
