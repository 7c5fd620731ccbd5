package resp

import "github.com/mayfly/mayfly/internal/kv"

var cmdRPushX = def(cmdSpec{
	Name: "rpushx", Arity: -3, Flags: "write denyoom fast", FirstKey: 1, LastKey: 1, Step: 1,
	ACL: "write list fast", Group: "list", Since: "2.2.0",
	Summary:    "Appends an element to a list only when the list exists.",
	Complexity: "O(1) for each element added, so O(N) to add N elements when the command is called with multiple arguments.",
	Handler:    func(x *cmdCtx) error { return pushGeneric(x, kv.ListRight, true) },
})
