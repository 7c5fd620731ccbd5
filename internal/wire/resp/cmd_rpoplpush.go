package resp

import "github.com/mayfly/mayfly/internal/kv"

var cmdRPopLPush = def("rpoplpush", 3, "write denyoom", 1, 2, 1, "write list slow", "list", "1.2.0",
	"Returns the last element of a list after removing and pushing it to another list. Deletes the list if the last element was popped.",
	"O(1)", func(x *cmdCtx) error { return lmoveGeneric(x, kv.ListRight, kv.ListLeft) })
