package resp

// RESTORE-ASKING is RESTORE for a cluster's key migration; without a
// cluster it is RESTORE itself, as in Redis.
var cmdRestoreAsking = def(cmdSpec{
	Name: "restore-asking", Arity: -4, Flags: "write denyoom asking", FirstKey: 1, LastKey: 1, Step: 1,
	ACL: "keyspace write slow dangerous", Group: "server", Since: "3.0.0",
	Summary:    "An internal command for migrating keys in a cluster",
	Complexity: cmdRestore.complexity,
	Handler:    cmdRestore.handler,
})
