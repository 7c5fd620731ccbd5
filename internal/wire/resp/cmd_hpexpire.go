package resp

var cmdHPExpire = def(cmdSpec{
	Name: "hpexpire", Arity: -6, Flags: "write denyoom fast", FirstKey: 1, LastKey: 1, Step: 1,
	ACL: "write hash fast", Group: "hash", Since: "7.4.0",
	Summary:    "Set expiry for hash field using relative time to expire (milliseconds)",
	Complexity: "O(N) where N is the number of specified fields",
	Handler:    func(x *cmdCtx) error { return hexpireGeneric(x, 1, true) },
})
