package resp

var cmdSortRO = def(cmdSpec{
	Name: "sort_ro", Arity: -2, Flags: "readonly movablekeys", FirstKey: 1, LastKey: 1, Step: 1,
	ACL: "read set sortedset list slow dangerous", Group: "generic", Since: "7.0.0",
	Summary:    "Returns the sorted elements of a list, a set, or a sorted set.",
	Complexity: "O(N+M*log(M)) where N is the number of elements in the list or set to sort, and M the number of returned elements. When the elements are not sorted, complexity is O(N).",
	Handler:    func(x *cmdCtx) error { return sortGeneric(x, true) },
})
