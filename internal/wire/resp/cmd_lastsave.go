package resp

var cmdLastSave = def(cmdSpec{
	Name: "lastsave", Arity: 1, Flags: "loading stale fast",
	ACL: "admin fast dangerous", Group: "server", Since: "1.0.0",
	Summary:    "Returns the Unix timestamp of the last successful save to disk.",
	Complexity: "O(1)",
	Handler: func(x *cmdCtx) error {
		x.w.Int(x.s.lastSave.Load())
		return nil
	},
})
