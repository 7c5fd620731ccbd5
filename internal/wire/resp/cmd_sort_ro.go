package resp

var cmdSortRO = def("sort_ro", -2, "readonly movablekeys", 1, 1, 1, "read set sortedset list slow dangerous", "generic", "7.0.0",
	"Returns the sorted elements of a list, a set, or a sorted set.",
	"O(N+M*log(M)) where N is the number of elements in the list or set to sort, and M the number of returned elements. When the elements are not sorted, complexity is O(N).",
	func(x *cmdCtx) error { return sortGeneric(x, true) })
