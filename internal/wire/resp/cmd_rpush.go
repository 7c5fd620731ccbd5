package resp

import "github.com/mayfly/mayfly/internal/kv"

var cmdRPush = def(cmdSpec{
	Name: "rpush", Arity: -3, Flags: "write denyoom fast", FirstKey: 1, LastKey: 1, Step: 1,
	ACL: "write list fast", Group: "list", Since: "1.0.0",
	Summary:    "Appends one or more elements to a list. Creates the key if it doesn't exist.",
	Complexity: "O(1) for each element added, so O(N) to add N elements when the command is called with multiple arguments.",
	Handler:    func(x *cmdCtx) error { return pushGeneric(x, kv.ListRight, false) },
})
