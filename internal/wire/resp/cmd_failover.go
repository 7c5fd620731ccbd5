package resp

// FAILOVER answers as a Redis master without replicas does: there is no
// failover to abort and none to start.
var cmdFailover = def(cmdSpec{
	Name: "failover", Arity: -1, Flags: "admin noscript stale",
	ACL: "admin slow dangerous", Group: "server", Since: "6.2.0",
	Summary:    "Start a coordinated failover between this server and one of its replicas.",
	Complexity: "O(1)",
	Handler: func(x *cmdCtx) error {
		if len(x.args) == 2 && argEq(x.args[1], "abort") {
			return replyErr("ERR No failover in progress.")
		}
		return replyErr("ERR FAILOVER requires connected replicas.")
	},
})
