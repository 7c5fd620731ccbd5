package resp

var cmdWatch = def(cmdSpec{
	Name: "watch", Arity: -2, Flags: "noscript loading stale fast allow_busy", FirstKey: 1, LastKey: -1, Step: 1,
	ACL: "fast transaction", Group: "transactions", Since: "2.2.0",
	Summary:    "Monitors changes to keys to determine the execution of a transaction.",
	Complexity: "O(1) for every key.",
	Handler: func(x *cmdCtx) error {
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
	},
})
