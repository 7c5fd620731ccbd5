package resp

import "github.com/mayfly/mayfly/internal/kv"

var cmdBRPopLPush = def(cmdSpec{
	Name: "brpoplpush", Arity: 4, Flags: "write denyoom noscript blocking", FirstKey: 1, LastKey: 2, Step: 1,
	ACL: "write list slow blocking", Group: "list", Since: "2.2.0",
	Summary:    "Pops an element from a list, pushes it to another list and returns it. Block until an element is available otherwise. Deletes the list if the last element was popped.",
	Complexity: "O(1)",
	Handler:    func(x *cmdCtx) error { return blmoveGeneric(x, kv.ListRight, kv.ListLeft, x.args[3]) },
})
