package resp

var cmdUnwatch = def("unwatch", 1, "noscript loading stale fast allow_busy", 0, 0, 0, "fast transaction", "transactions", "2.2.0",
	"Forgets about watched keys of a transaction.", "O(1)", func(x *cmdCtx) error {
		x.c.unwatch()
		x.w.OK()
		return nil
	})
