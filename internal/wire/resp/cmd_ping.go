package resp

var cmdPing = def(cmdSpec{
	Name: "ping", Arity: -1, Flags: "fast",
	ACL: "fast connection", Group: "connection", Since: "1.0.0",
	Summary:    "Returns the server's liveliness response.",
	Complexity: "O(1)",
	Handler: func(x *cmdCtx) error {
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
	},
})
