package resp

import "github.com/mayfly/mayfly/internal/kv"

var cmdRPush = def("rpush", -3, "write denyoom fast", 1, 1, 1, "write list fast", "list", "1.0.0",
	"Appends one or more elements to a list. Creates the key if it doesn't exist.",
	"O(1) for each element added, so O(N) to add N elements when the command is called with multiple arguments.",
	func(x *cmdCtx) error { return pushGeneric(x, kv.ListRight, false) })
