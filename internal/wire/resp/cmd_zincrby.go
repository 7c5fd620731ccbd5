package resp

var cmdZIncrBy = def("zincrby", 4, "write denyoom fast", 1, 1, 1, "write sortedset fast", "sorted-set", "1.2.0",
	"Increments the score of a member in a sorted set.", "O(log(N)) where N is the number of elements in the sorted set.",
	func(x *cmdCtx) error { return zaddGeneric(x, true) })
