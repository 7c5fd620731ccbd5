package resp

var cmdHExpireTime = def(cmdSpec{
	Name: "hexpiretime", Arity: -5, Flags: "readonly fast", FirstKey: 1, LastKey: 1, Step: 1,
	ACL: "read hash fast", Group: "hash", Since: "7.4.0",
	Summary:    "Returns the expiration time of a hash field as a Unix timestamp, in seconds.",
	Complexity: "O(N) where N is the number of specified fields",
	Handler:    func(x *cmdCtx) error { return httlGeneric(x, 1000, false) },
})
