package resp

var cmdDBSize = def(cmdSpec{
	Name: "dbsize", Arity: 1, Flags: "readonly fast",
	ACL: "keyspace read fast", Group: "server", Since: "1.0.0",
	Summary:    "Returns the number of keys in the database.",
	Complexity: "O(1)",
	Handler: func(x *cmdCtx) error {
		n, err := x.tx.DBSize()
		if err != nil {
			return err
		}
		x.w.Int(n)
		return nil
	},
})
