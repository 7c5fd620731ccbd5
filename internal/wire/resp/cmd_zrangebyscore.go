package resp

import "github.com/mayfly/mayfly/internal/kv"

var cmdZRangeByScore = def(cmdSpec{
	Name: "zrangebyscore", Arity: -4, Flags: "readonly", FirstKey: 1, LastKey: 1, Step: 1,
	ACL: "read sortedset slow", Group: "sorted-set", Since: "1.0.5",
	Summary:    "Returns members in a sorted set within a range of scores.",
	Complexity: "O(log(N)+M) with N being the number of elements in the sorted set and M the number of elements being returned. If M is constant (e.g. always asking for the first 10 elements with LIMIT), you can consider it O(log(N)).",
	Handler:    func(x *cmdCtx) error { return zrangeGeneric(x, 1, false, kv.ZByScore, dirForward) },
})
