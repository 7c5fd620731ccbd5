package resp

import "github.com/mayfly/mayfly/internal/kv"

var cmdRPopLPush = def(cmdSpec{
	Name: "rpoplpush", Arity: 3, Flags: "write denyoom", FirstKey: 1, LastKey: 2, Step: 1,
	ACL: "write list slow", Group: "list", Since: "1.2.0",
	Summary:    "Returns the last element of a list after removing and pushing it to another list. Deletes the list if the last element was popped.",
	Complexity: "O(1)",
	Handler:    func(x *cmdCtx) error { return lmoveGeneric(x, kv.ListRight, kv.ListLeft) },
})
