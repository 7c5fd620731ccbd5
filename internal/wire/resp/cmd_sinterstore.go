package resp

import "github.com/mayfly/mayfly/internal/kv"

var cmdSInterStore = def(cmdSpec{
	Name: "sinterstore", Arity: -3, Flags: "write denyoom", FirstKey: 1, LastKey: -1, Step: 1,
	ACL: "write set slow", Group: "set", Since: "1.0.0",
	Summary:    "Stores the intersect of multiple sets in a key.",
	Complexity: "O(N*M) worst case where N is the cardinality of the smallest set and M is the number of sets.",
	Handler:    func(x *cmdCtx) error { return setStoreGeneric(x, kv.SetInter) },
})
