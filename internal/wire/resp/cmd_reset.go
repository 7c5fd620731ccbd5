package resp

var cmdReset = def("reset", 1, "noscript loading stale fast no_auth allow_busy", 0, 0, 0, "fast connection", "connection", "6.2.0",
	"Resets the connection.", "O(1)", func(x *cmdCtx) error {
		c := x.c
		c.multi = nil
		c.unwatch()
		x.s.hub.unsubscribeAll(c)
		c.mu.Lock()
		c.db = 0
		c.name = ""
		c.mu.Unlock()
		c.replyOff, c.replySkip = false, 0
		c.setProto(2)
		c.authed = x.s.cfg.requirePass() == ""
		x.w.Simple("RESET")
		return nil
	})
