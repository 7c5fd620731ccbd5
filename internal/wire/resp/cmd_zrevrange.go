package resp

import "github.com/mayfly/mayfly/internal/kv"

var cmdZRevRange = def(cmdSpec{
	Name: "zrevrange", Arity: -4, Flags: "readonly", FirstKey: 1, LastKey: 1, Step: 1,
	ACL: "read sortedset slow", Group: "sorted-set", Since: "1.2.0",
	Summary:    "Returns members in a sorted set within a range of indexes in reverse order.",
	Complexity: "O(log(N)+M) with N being the number of elements in the sorted set and M the number of elements returned.",
	Handler:    func(x *cmdCtx) error { return zrangeGeneric(x, 1, false, kv.ZByRank, dirReverse) },
})
