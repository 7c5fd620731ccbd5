package resp

var cmdPExpireAt = def(cmdSpec{
	Name: "pexpireat", Arity: -3, Flags: "write fast", FirstKey: 1, LastKey: 1, Step: 1,
	ACL: "keyspace write fast", Group: "generic", Since: "2.6.0",
	Summary:    "Sets the expiration time of a key to a Unix milliseconds timestamp.",
	Complexity: "O(1)",
	Handler:    func(x *cmdCtx) error { return expireGeneric(x, 1, false) },
})
