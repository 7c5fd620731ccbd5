package resp

var cmdEcho = def("echo", 2, "fast", 0, 0, 0, "fast connection", "connection", "1.0.0",
	"Returns the given string.", "O(1)", func(x *cmdCtx) error {
		x.w.Bulk(x.args[1])
		return nil
	})
