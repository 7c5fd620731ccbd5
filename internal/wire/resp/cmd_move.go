package resp

var cmdMove = def(cmdSpec{
	Name: "move", Arity: 3, Flags: "write fast", FirstKey: 1, LastKey: 1, Step: 1,
	ACL: "keyspace write fast", Group: "generic", Since: "1.0.0",
	Summary:    "Moves a key to another database.",
	Complexity: "O(1)",
	Handler: func(x *cmdCtx) error {
		db, err := parseDB(x.args[2])
		if err != nil {
			return err
		}
		ok, err := x.tx.Move(x.args[1], db)
		if err != nil {
			return err
		}
		if ok {
			serveBlockedIn(x, db, x.args[1])
		}
		x.w.Bool2(ok)
		return nil
	},
})
