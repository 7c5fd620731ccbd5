package resp

var cmdPExpireAt = def("pexpireat", -3, "write fast", 1, 1, 1, "keyspace write fast", "generic", "2.6.0",
	"Sets the expiration time of a key to a Unix milliseconds timestamp.", "O(1)", func(x *cmdCtx) error { return expireGeneric(x, 1, false) })
