package resp

var cmdHKeys = def(cmdSpec{
	Name: "hkeys", Arity: 2, Flags: "readonly", FirstKey: 1, LastKey: 1, Step: 1,
	ACL: "read hash slow", Group: "hash", Since: "2.0.0",
	Summary:    "Returns all fields in a hash.",
	Complexity: "O(N) where N is the size of the hash.",
	Handler: func(x *cmdCtx) error {
		pairs, err := x.tx.HGetAll(x.args[1])
		if err != nil {
			return err
		}
		x.w.Array(len(pairs))
		for _, p := range pairs {
			x.w.Bulk(p.Field)
		}
		return nil
	},
})
