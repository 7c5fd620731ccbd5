package resp

var cmdHPTTL = def(cmdSpec{
	Name: "hpttl", Arity: -5, Flags: "readonly fast", FirstKey: 1, LastKey: 1, Step: 1,
	ACL: "read hash fast", Group: "hash", Since: "7.4.0",
	Summary:    "Returns the TTL in milliseconds of a hash field.",
	Complexity: "O(N) where N is the number of specified fields",
	Handler:    func(x *cmdCtx) error { return httlGeneric(x, 1, true) },
})
