package resp

import "github.com/mayfly/mayfly/internal/kv"

var cmdRPop = def("rpop", -2, "write fast", 1, 1, 1, "write list fast", "list", "1.0.0",
	"Returns and removes the last elements of a list. Deletes the list if the last element was popped.",
	"O(N) where N is the number of elements returned", func(x *cmdCtx) error { return popGeneric(x, kv.ListRight) })
