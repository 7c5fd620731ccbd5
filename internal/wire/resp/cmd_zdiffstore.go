package resp

import "github.com/mayfly/mayfly/internal/kv"

var cmdZDiffStore = def(cmdSpec{
	Name: "zdiffstore", Arity: -4, Flags: "write denyoom movablekeys", FirstKey: 1, LastKey: 1, Step: 1,
	ACL: "write sortedset slow", Group: "sorted-set", Since: "6.2.0",
	Summary:    "Stores the difference of multiple sorted sets in a key.",
	Complexity: "O(N*K)+O(M*log(M)) worst case with N being the smallest input sorted set, K being the number of input sorted sets and M being the number of elements in the resulting sorted set.",
	Handler:    func(x *cmdCtx) error { return zsetOpGeneric(x, kv.SetDiff, true) },
})
