package resp

import "github.com/mayfly/mayfly/internal/kv"

var cmdSUnion = def("sunion", -2, "readonly", 1, -1, 1, "read set slow", "set", "1.0.0",
	"Returns the union of multiple sets.", "O(N) where N is the total number of elements in all given sets.",
	func(x *cmdCtx) error { return setOpGeneric(x, kv.SetUnion) })
