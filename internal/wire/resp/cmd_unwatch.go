package resp

var cmdUnwatch = def(cmdSpec{
	Name: "unwatch", Arity: 1, Flags: "noscript loading stale fast allow_busy",
	ACL: "fast transaction", Group: "transactions", Since: "2.2.0",
	Summary:    "Forgets about watched keys of a transaction.",
	Complexity: "O(1)",
	Handler: func(x *cmdCtx) error {
		x.c.unwatch()
		x.w.OK()
		return nil
	},
})
