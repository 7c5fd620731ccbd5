package resp

var cmdZPopMax = def(cmdSpec{
	Name: "zpopmax", Arity: -2, Flags: "write fast", FirstKey: 1, LastKey: 1, Step: 1,
	ACL: "write sortedset fast", Group: "sorted-set", Since: "5.0.0",
	Summary:    "Returns the highest-scoring members from a sorted set after removing them. Deletes the sorted set if the last member was popped.",
	Complexity: "O(log(N)*M) with N being the number of elements in the sorted set, and M being the number of elements popped.",
	Handler:    func(x *cmdCtx) error { return zpopGeneric(x, true) },
})
