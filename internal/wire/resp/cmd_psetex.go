package resp

var cmdPSetEx = def(cmdSpec{
	Name: "psetex", Arity: 4, Flags: "write denyoom", FirstKey: 1, LastKey: 1, Step: 1,
	ACL: "write string slow", Group: "string", Since: "2.6.0",
	Summary:    "Sets both string value and expiration time in milliseconds of a key. The key is created if it doesn't exist.",
	Complexity: "O(1)",
	Handler:    func(x *cmdCtx) error { return setWithTTL(x, 1) },
})
