package resp

var cmdMulti = def("multi", 1, "noscript loading stale fast allow_busy", 0, 0, 0, "fast transaction", "transactions", "1.2.0",
	"Starts a transaction.", "O(1)", func(x *cmdCtx) error {
		if x.c.multi != nil {
			return replyErr("ERR MULTI calls can not be nested")
		}
		x.c.multi = &multiState{}
		x.w.OK()
		return nil
	})
