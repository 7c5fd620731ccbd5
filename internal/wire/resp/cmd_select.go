package resp

var cmdSelect = def(cmdSpec{
	Name: "select", Arity: 2, Flags: "loading stale fast",
	ACL: "fast connection", Group: "connection", Since: "1.0.0",
	Summary:    "Changes the selected database.",
	Complexity: "O(1)",
	Handler: func(x *cmdCtx) error {
		db, err := parseDB(x.args[1])
		if err != nil {
			return err
		}
		x.c.mu.Lock()
		x.c.db = db
		x.c.mu.Unlock()
		if err := x.tx.Use(db); err != nil {
			return err
		}
		x.w.OK()
		return nil
	},
})
