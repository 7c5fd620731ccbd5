package resp

var cmdZRevRank = def("zrevrank", -3, "readonly fast", 1, 1, 1, "read sortedset fast", "sorted-set", "2.0.0",
	"Returns the index of a member in a sorted set ordered by descending scores.",
	"O(log(N))", func(x *cmdCtx) error { return zrankGeneric(x, true) })
