package resp

var cmdDiscard = def("discard", 1, "noscript loading stale fast allow_busy", 0, 0, 0, "fast transaction", "transactions", "2.0.0",
	"Discards a transaction.", "O(N), when N is the number of queued commands", func(x *cmdCtx) error {
		if x.c.multi == nil {
			return replyErr("ERR DISCARD without MULTI")
		}
		x.c.multi = nil
		x.c.unwatch()
		x.w.OK()
		return nil
	})
