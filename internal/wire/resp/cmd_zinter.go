package resp

import "github.com/mayfly/mayfly/internal/kv"

var cmdZInter = def("zinter", -3, "readonly movablekeys", 0, 0, 0, "read sortedset slow", "sorted-set", "6.2.0",
	"Returns the intersect of multiple sorted sets.", "O(N*K)+O(M*log(M)) worst case with N being the smallest input sorted set, K being the number of input sorted sets and M being the number of elements in the resulting sorted set.",
	func(x *cmdCtx) error { return zsetOpGeneric(x, kv.SetInter, false) })
