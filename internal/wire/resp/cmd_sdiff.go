package resp

import "github.com/mayfly/mayfly/internal/kv"

var cmdSDiff = def("sdiff", -2, "readonly", 1, -1, 1, "read set slow", "set", "1.0.0",
	"Returns the difference of multiple sets.", "O(N) where N is the total number of elements in all given sets.",
	func(x *cmdCtx) error { return setOpGeneric(x, kv.SetDiff) })
