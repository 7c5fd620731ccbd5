package resp

var cmdQuit = def(cmdSpec{
	Name: "quit", Arity: -1, Flags: "noscript loading stale fast no_auth allow_busy",
	ACL: "fast connection", Group: "connection", Since: "1.0.0",
	Summary:    "Closes the connection.",
	Complexity: "O(1)",
	Handler: func(x *cmdCtx) error {
		x.w.OK()
		x.c.closeNext = true
		return nil
	},
})
