package resp

var cmdExpireAt = def("expireat", -3, "write fast", 1, 1, 1, "keyspace write fast", "generic", "1.2.0",
	"Sets the expiration time of a key to a Unix timestamp.", "O(1)", func(x *cmdCtx) error { return expireGeneric(x, 1000, false) })
