package resp

import "github.com/mayfly/mayfly/internal/kv"

var cmdZInter = def(cmdSpec{
	Name: "zinter", Arity: -3, Flags: "readonly movablekeys",
	ACL: "read sortedset slow", Group: "sorted-set", Since: "6.2.0",
	Summary:    "Returns the intersect of multiple sorted sets.",
	Complexity: "O(N*K)+O(M*log(M)) worst case with N being the smallest input sorted set, K being the number of input sorted sets and M being the number of elements in the resulting sorted set.",
	Handler:    func(x *cmdCtx) error { return zsetOpGeneric(x, kv.SetInter, false) },
})
