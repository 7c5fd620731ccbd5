package resp

import "github.com/mayfly/mayfly/internal/kv"

var cmdRPop = def(cmdSpec{
	Name: "rpop", Arity: -2, Flags: "write fast", FirstKey: 1, LastKey: 1, Step: 1,
	ACL: "write list fast", Group: "list", Since: "1.0.0",
	Summary:    "Returns and removes the last elements of a list. Deletes the list if the last element was popped.",
	Complexity: "O(N) where N is the number of elements returned",
	Handler:    func(x *cmdCtx) error { return popGeneric(x, kv.ListRight) },
})
