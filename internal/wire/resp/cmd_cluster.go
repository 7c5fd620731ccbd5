package resp

// errClusterDisabled is what Redis without cluster support answers to every
// cluster command.
const errClusterDisabled = replyErr("ERR This instance has cluster support disabled")

// CLUSTER answers every subcommand as a Redis started without
// cluster-enabled does: mayfly is one node, never a cluster.
var cmdCluster = def(cmdSpec{
	Name: "cluster", Arity: -2,
	ACL: "slow", Group: "cluster", Since: "3.0.0",
	Summary:    "A container for cluster commands",
	Complexity: "Depends on subcommand.",
	Handler:    func(*cmdCtx) error { return errClusterDisabled },
})
