package resp

var cmdMove = def("move", 3, "write fast", 1, 1, 1, "keyspace write fast", "generic", "1.0.0",
	"Moves a key to another database.", "O(1)", func(x *cmdCtx) error {
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
	})
