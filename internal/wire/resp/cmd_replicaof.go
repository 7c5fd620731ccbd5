package resp

// replicaOf is REPLICAOF and SLAVEOF: NO ONE succeeds, since mayfly is
// always a master; becoming a replica is refused, as mayfly does not
// replicate.
func replicaOf(x *cmdCtx) error {
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
