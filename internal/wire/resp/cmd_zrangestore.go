package resp

var cmdZRangeStore = def(cmdSpec{
	Name: "zrangestore", Arity: -5, Flags: "write denyoom", FirstKey: 1, LastKey: 2, Step: 1,
	ACL: "write sortedset slow", Group: "sorted-set", Since: "6.2.0",
	Summary:    "Stores a range of members from sorted set in a key.",
	Complexity: "O(log(N)+M) with N being the number of elements in the sorted set and M the number of elements stored into the destination key.",
	Handler:    func(x *cmdCtx) error { return zrangeGeneric(x, 2, true, zrangeAuto, dirAuto) },
})
