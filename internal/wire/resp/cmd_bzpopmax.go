package resp

var cmdBZPopMax = def(cmdSpec{
	Name: "bzpopmax", Arity: -3, Flags: "write noscript blocking fast", FirstKey: 1, LastKey: -2, Step: 1,
	ACL: "write sortedset fast blocking", Group: "sorted-set", Since: "5.0.0",
	Summary:    "Removes and returns the member with the highest score from one or more sorted sets. Blocks until a member available otherwise. Deletes the sorted set if the last element was popped.",
	Complexity: "O(log(N)) with N being the number of elements in the sorted set.",
	Handler:    func(x *cmdCtx) error { return bzpopGeneric(x, true) },
})
