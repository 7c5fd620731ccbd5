package resp

var cmdBZPopMax = def("bzpopmax", -3, "write noscript blocking fast", 1, -2, 1, "write sortedset fast blocking", "sorted-set", "5.0.0",
	"Removes and returns the member with the highest score from one or more sorted sets. Blocks until a member available otherwise. Deletes the sorted set if the last element was popped.",
	"O(log(N)) with N being the number of elements in the sorted set.",
	func(x *cmdCtx) error { return bzpopGeneric(x, true) })
