package resp

var cmdEcho = def(cmdSpec{
	Name: "echo", Arity: 2, Flags: "loading stale fast",
	ACL: "fast connection", Group: "connection", Since: "1.0.0",
	Summary:    "Returns the given string.",
	Complexity: "O(1)",
	Handler: func(x *cmdCtx) error {
		x.w.Bulk(x.args[1])
		return nil
	},
})
