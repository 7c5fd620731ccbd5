package resp

// ROLE answers as a Redis master without replicas: mayfly never
// replicates, so its offset stays 0.
var cmdRole = def(cmdSpec{
	Name: "role", Arity: 1, Flags: "noscript loading stale fast",
	ACL: "admin fast dangerous", Group: "server", Since: "2.8.12",
	Summary:    "Return the role of the instance in the context of replication",
	Complexity: "O(1)",
	Handler: func(x *cmdCtx) error {
		x.w.Array(3)
		x.w.BulkString("master")
		x.w.Int(0)
		x.w.Array(0)
		return nil
	},
})
