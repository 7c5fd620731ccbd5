package resp

var cmdPersist = def(cmdSpec{
	Name: "persist", Arity: 2, Flags: "write fast", FirstKey: 1, LastKey: 1, Step: 1,
	ACL: "keyspace write fast", Group: "generic", Since: "2.2.0",
	Summary:    "Removes the expiration time of a key.",
	Complexity: "O(1)",
	Handler: func(x *cmdCtx) error {
		ok, err := x.tx.Persist(x.args[1])
		if err != nil {
			return err
		}
		x.w.Bool2(ok)
		return nil
	},
})
