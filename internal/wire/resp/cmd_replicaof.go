package resp

// replicaOf is REPLICAOF and SLAVEOF: on a standalone, NO ONE succeeds,
// since it is always a master, and becoming a replica is refused; on a
// member of a replica set both are refused, since the set decides who is
// primary.
func replicaOf(x *cmdCtx) error {
	if x.s.opts.Replica != nil {
		return replyErr("ERR this server is a member of a replica set, whose membership and primary the replica set manages: use rs.add()/rs.remove() or mayfly replicas instead")
	}
	if argEq(x.args[1], "no") && argEq(x.args[2], "one") {
		x.w.OK()
		return nil
	}
	if _, err := parseInt(x.args[2]); err != nil {
		return err
	}
	return replyErr("ERR mayfly does not replicate: only REPLICAOF NO ONE is accepted")
}

var cmdReplicaOf = def(cmdSpec{
	Name: "replicaof", Arity: 3, Flags: "admin noscript stale no_async_loading",
	ACL: "admin slow dangerous", Group: "server", Since: "5.0.0",
	Summary:    "Make the server a replica of another instance, or promote it as master.",
	Complexity: "O(1)",
	Handler:    replicaOf,
})

var cmdSlaveOf = def(cmdSpec{
	Name: "slaveof", Arity: 3, Flags: "admin noscript stale no_async_loading",
	ACL: "admin slow dangerous", Group: "server", Since: "1.0.0",
	Summary:    "Make the server a replica of another instance, or promote it as master.",
	Complexity: "O(1)",
	Handler:    replicaOf,
})
