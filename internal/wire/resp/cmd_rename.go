package resp

var cmdRename = def(cmdSpec{
	Name: "rename", Arity: 3, Flags: "write", FirstKey: 1, LastKey: 2, Step: 1,
	ACL: "keyspace write slow", Group: "generic", Since: "1.0.0",
	Summary:    "Renames a key and overwrites the destination.",
	Complexity: "O(1)",
	Handler: func(x *cmdCtx) error {
		if _, err := x.tx.Rename(x.args[1], x.args[2], false); err != nil {
			return err
		}
		serveBlocked(x, x.args[2])
		x.w.OK()
		return nil
	},
})
