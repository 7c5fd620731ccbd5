package resp

var cmdMulti = def(cmdSpec{
	Name: "multi", Arity: 1, Flags: "noscript loading stale fast allow_busy",
	ACL: "fast transaction", Group: "transactions", Since: "1.2.0",
	Summary:    "Starts a transaction.",
	Complexity: "O(1)",
	Handler: func(x *cmdCtx) error {
		if x.c.multi != nil {
			return replyErr("ERR MULTI calls can not be nested")
		}
		x.c.multi = &multiState{}
		x.w.OK()
		return nil
	},
})
