package resp

import "github.com/mayfly/mayfly/internal/kv"

var cmdZRangeByLex = def(cmdSpec{
	Name: "zrangebylex", Arity: -4, Flags: "readonly", FirstKey: 1, LastKey: 1, Step: 1,
	ACL: "read sortedset slow", Group: "sorted-set", Since: "2.8.9",
	Summary:    "Returns members in a sorted set within a lexicographical range.",
	Complexity: "O(log(N)+M) with N being the number of elements in the sorted set and M the number of elements being returned. If M is constant (e.g. always asking for the first 10 elements with LIMIT), you can consider it O(log(N)).",
	Handler:    func(x *cmdCtx) error { return zrangeGeneric(x, 1, false, kv.ZByLex, dirForward) },
})
