package resp

var cmdFlushAll = def(cmdSpec{
	Name: "flushall", Arity: -1, Flags: "write",
	ACL: "keyspace write slow dangerous", Group: "server", Since: "1.0.0",
	Summary:    "Removes all keys from all databases.",
	Complexity: "O(N) where N is the total number of keys in all databases",
	Handler: func(x *cmdCtx) error {
		if err := flushMode(x); err != nil {
			return err
		}
		if err := x.tx.FlushAll(); err != nil {
			return err
		}
		x.w.OK()
		return nil
	},
})
