package resp

var cmdDiscard = def(cmdSpec{
	Name: "discard", Arity: 1, Flags: "noscript loading stale fast allow_busy",
	ACL: "fast transaction", Group: "transactions", Since: "2.0.0",
	Summary:    "Discards a transaction.",
	Complexity: "O(N), when N is the number of queued commands",
	Handler: func(x *cmdCtx) error {
		if x.c.multi == nil {
			return replyErr("ERR DISCARD without MULTI")
		}
		x.c.multi = nil
		x.c.unwatch()
		x.w.OK()
		return nil
	},
})
