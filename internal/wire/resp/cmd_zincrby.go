package resp

var cmdZIncrBy = def(cmdSpec{
	Name: "zincrby", Arity: 4, Flags: "write denyoom fast", FirstKey: 1, LastKey: 1, Step: 1,
	ACL: "write sortedset fast", Group: "sorted-set", Since: "1.2.0",
	Summary:    "Increments the score of a member in a sorted set.",
	Complexity: "O(log(N)) where N is the number of elements in the sorted set.",
	Handler:    func(x *cmdCtx) error { return zaddGeneric(x, true) },
})
