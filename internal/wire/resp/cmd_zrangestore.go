package resp

var cmdZRangeStore = def("zrangestore", -5, "write denyoom", 1, 2, 1, "write sortedset slow", "sorted-set", "6.2.0",
	"Stores a range of members from sorted set in a key.",
	"O(log(N)+M) with N being the number of elements in the sorted set and M the number of elements stored into the destination key.",
	func(x *cmdCtx) error { return zrangeGeneric(x, 2, true, zrangeAuto, dirAuto) })
