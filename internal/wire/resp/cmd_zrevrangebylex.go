package resp

import "github.com/mayfly/mayfly/internal/kv"

var cmdZRevRangeByLex = def("zrevrangebylex", -4, "readonly", 1, 1, 1, "read sortedset slow", "sorted-set", "2.8.9",
	"Returns members in a sorted set within a lexicographical range in reverse order.",
	"O(log(N)+M) with N being the number of elements in the sorted set and M the number of elements being returned. If M is constant (e.g. always asking for the first 10 elements with LIMIT), you can consider it O(log(N)).",
	func(x *cmdCtx) error { return zrangeGeneric(x, 1, false, kv.ZByLex, dirReverse) })
