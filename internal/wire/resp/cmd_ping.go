package resp

var cmdPing = def("ping", -1, "fast", 0, 0, 0, "fast connection", "connection", "1.0.0",
	"Returns the server's liveliness response.", "O(1)", func(x *cmdCtx) error {
		if len(x.args) > 2 {
			return errArity(x.cmd.name)
		}
		if x.w.Proto() == 2 && x.c.subscriptions() > 0 {
			x.w.Array(2)
			x.w.BulkString("pong")
			if len(x.args) == 2 {
				x.w.Bulk(x.args[1])
			} else {
				x.w.BulkString("")
			}
			return nil
		}
		if len(x.args) == 2 {
			x.w.Bulk(x.args[1])
		} else {
			x.w.Simple("PONG")
		}
		return nil
	})
