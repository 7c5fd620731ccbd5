package resp

import "github.com/mayfly/mayfly/internal/kv"

var cmdZDiffStore = def("zdiffstore", -4, "write denyoom movablekeys", 1, 1, 1, "write sortedset slow", "sorted-set", "6.2.0",
	"Stores the difference of multiple sorted sets in a key.", "O(N*K)+O(M*log(M)) worst case with N being the smallest input sorted set, K being the number of input sorted sets and M being the number of elements in the resulting sorted set.",
	func(x *cmdCtx) error { return zsetOpGeneric(x, kv.SetDiff, true) })
