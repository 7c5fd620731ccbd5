package resp

var cmdRenameNX = def(cmdSpec{
	Name: "renamenx", Arity: 3, Flags: "write fast", FirstKey: 1, LastKey: 2, Step: 1,
	ACL: "keyspace write fast", Group: "generic", Since: "1.0.0",
	Summary:    "Renames a key only when the target key name doesn't exist.",
	Complexity: "O(1)",
	Handler: func(x *cmdCtx) error {
		ok, err := x.tx.Rename(x.args[1], x.args[2], true)
		if err != nil {
			return err
		}
		if ok {
			serveBlocked(x, x.args[2])
		}
		x.w.Bool2(ok)
		return nil
	},
})
