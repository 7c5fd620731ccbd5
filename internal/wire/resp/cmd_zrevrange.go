package resp

import "github.com/mayfly/mayfly/internal/kv"

var cmdZRevRange = def("zrevrange", -4, "readonly", 1, 1, 1, "read sortedset slow", "sorted-set", "1.2.0",
	"Returns members in a sorted set within a range of indexes in reverse order.",
	"O(log(N)+M) with N being the number of elements in the sorted set and M the number of elements returned.",
	func(x *cmdCtx) error { return zrangeGeneric(x, 1, false, kv.ZByRank, dirReverse) })
