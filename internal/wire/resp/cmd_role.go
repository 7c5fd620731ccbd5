package resp

// ROLE answers, on a standalone, as a Redis master without replicas whose
// offset stays 0; on a member of a replica set, as the primary (master,
// with the other members as replicas) or a follower (slave) would.
var cmdRole = def(cmdSpec{
	Name: "role", Arity: 1, Flags: "noscript loading stale fast",
	ACL: "admin fast dangerous", Group: "server", Since: "2.8.12",
	Summary:    "Return the role of the instance in the context of replication",
	Complexity: "O(1)",
	Handler: func(x *cmdCtx) error {
		if r := x.s.opts.Replica; r != nil {
			role(x, r)
			return nil
		}
		x.w.Array(3)
		x.w.BulkString("master")
		x.w.Int(0)
		x.w.Array(0)
		return nil
	},
})
