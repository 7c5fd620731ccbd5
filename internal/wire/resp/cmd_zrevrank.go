package resp

var cmdZRevRank = def(cmdSpec{
	Name: "zrevrank", Arity: -3, Flags: "readonly fast", FirstKey: 1, LastKey: 1, Step: 1,
	ACL: "read sortedset fast", Group: "sorted-set", Since: "2.0.0",
	Summary:    "Returns the index of a member in a sorted set ordered by descending scores.",
	Complexity: "O(log(N))",
	Handler:    func(x *cmdCtx) error { return zrankGeneric(x, true) },
})
