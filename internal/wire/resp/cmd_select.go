package resp

var cmdSelect = def("select", 2, "loading stale fast", 0, 0, 0, "fast connection", "connection", "1.0.0",
	"Changes the selected database.", "O(1)", func(x *cmdCtx) error {
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
	})
