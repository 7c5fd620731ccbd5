package resp

var cmdReset = def(cmdSpec{
	Name: "reset", Arity: 1, Flags: "noscript loading stale fast no_auth allow_busy",
	ACL: "fast connection", Group: "connection", Since: "6.2.0",
	Summary:    "Resets the connection.",
	Complexity: "O(1)",
	Handler: func(x *cmdCtx) error {
		c := x.c
		c.multi = nil
		c.unwatch()
		x.s.hub.unsubscribeAll(c)
		x.s.unmonitor(c)
		if c.track != nil {
			x.s.tracking.disable(c)
		}
		c.mu.Lock()
		c.db = 0
		c.name = ""
		c.mu.Unlock()
		c.replyOff, c.replySkip, c.skipCurrent = false, 0, false
		c.setProto(2)
		c.authed = x.s.acl.defaultAuthed()
		c.mu.Lock()
		c.account = nil
		c.mu.Unlock()
		x.w.Simple("RESET")
		return nil
	},
})
