package resp

var cmdTime = def(cmdSpec{
	Name: "time", Arity: 1, Flags: "loading stale fast",
	ACL: "fast", Group: "server", Since: "2.6.0",
	Summary:    "Returns the server time.",
	Complexity: "O(1)",
	Handler: func(x *cmdCtx) error {
		now := x.s.opts.Now()
		x.w.Array(2)
		x.w.BulkInt(now.Unix())
		x.w.BulkInt(int64(now.Nanosecond() / 1000))
		return nil
	},
})
