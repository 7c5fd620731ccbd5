package resp

var cmdQuit = def("quit", -1, "noscript loading stale fast no_auth allow_busy", 0, 0, 0, "fast connection", "connection", "1.0.0",
	"Closes the connection.", "O(1)", func(x *cmdCtx) error {
		x.w.OK()
		x.c.closeNext = true
		return nil
	})
