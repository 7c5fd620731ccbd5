package resp

import "github.com/mayfly/mayfly/internal/kv"

var cmdBRPop = def("brpop", -3, "write blocking", 1, -2, 1, "write list slow blocking", "list", "2.0.0",
	"Removes and returns the last element in a list. Blocks until an element is available otherwise. Deletes the list if the last element was popped.",
	"O(N) where N is the number of provided keys.", func(x *cmdCtx) error { return blockingPop(x, kv.ListRight) })
