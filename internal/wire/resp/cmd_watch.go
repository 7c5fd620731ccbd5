package resp

var cmdWatch = def("watch", -2, "noscript loading stale fast allow_busy", 1, -1, 1, "fast transaction", "transactions", "2.2.0",
	"Monitors changes to keys to determine the execution of a transaction.", "O(1) for every key.",
	func(x *cmdCtx) error {
		if x.c.multi != nil {
			return replyErr("ERR WATCH inside MULTI is not allowed")
		}
		x.s.kv.SetTrackTouches(true)
		for _, k := range x.args[1:] {
			n, err := x.tx.Exists([][]byte{k})
			if err != nil {
				return err
			}
			x.s.watches.watch(x.c, x.c.db, string(k), n > 0)
		}
		x.w.OK()
		return nil
	})
