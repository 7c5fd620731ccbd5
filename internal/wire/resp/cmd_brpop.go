package resp

import "github.com/mayfly/mayfly/internal/kv"

var cmdBRPop = def(cmdSpec{
	Name: "brpop", Arity: -3, Flags: "write noscript blocking", FirstKey: 1, LastKey: -2, Step: 1,
	ACL: "write list slow blocking", Group: "list", Since: "2.0.0",
	Summary:    "Removes and returns the last element in a list. Blocks until an element is available otherwise. Deletes the list if the last element was popped.",
	Complexity: "O(N) where N is the number of provided keys.",
	Handler:    func(x *cmdCtx) error { return blockingPop(x, kv.ListRight) },
})
