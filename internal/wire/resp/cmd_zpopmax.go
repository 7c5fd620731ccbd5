package resp

var cmdZPopMax = def("zpopmax", -2, "write fast", 1, 1, 1, "write sortedset fast", "sorted-set", "5.0.0",
	"Returns the highest-scoring members from a sorted set after removing them. Deletes the sorted set if the last member was popped.",
	"O(log(N)*M) with N being the number of elements in the sorted set, and M being the number of elements popped.",
	func(x *cmdCtx) error { return zpopGeneric(x, true) })
