package resp

import "github.com/mayfly/mayfly/internal/kv"

var cmdLPushX = def("lpushx", -3, "write denyoom fast", 1, 1, 1, "write list fast", "list", "2.2.0",
	"Prepends one or more elements to a list only when the list exists.",
	"O(1) for each element added, so O(N) to add N elements when the command is called with multiple arguments.",
	func(x *cmdCtx) error { return pushGeneric(x, kv.ListLeft, true) })
