package resp

import "github.com/mayfly/mayfly/internal/kv"

var cmdBRPopLPush = def("brpoplpush", 4, "write denyoom noscript blocking", 1, 2, 1, "write list slow blocking", "list", "2.2.0",
	"Pops an element from a list, pushes it to another list and returns it. Block until an element is available otherwise. Deletes the list if the last element was popped.",
	"O(1)", func(x *cmdCtx) error { return blmoveGeneric(x, kv.ListRight, kv.ListLeft, x.args[3]) })
