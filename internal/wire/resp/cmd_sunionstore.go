package resp

import "github.com/mayfly/mayfly/internal/kv"

var cmdSUnionStore = def(cmdSpec{
	Name: "sunionstore", Arity: -3, Flags: "write denyoom", FirstKey: 1, LastKey: -1, Step: 1,
	ACL: "write set slow", Group: "set", Since: "1.0.0",
	Summary:    "Stores the union of multiple sets in a key.",
	Complexity: "O(N) where N is the total number of elements in all given sets.",
	Handler:    func(x *cmdCtx) error { return setStoreGeneric(x, kv.SetUnion) },
})
