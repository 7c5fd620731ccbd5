package resp

import "github.com/mayfly/mayfly/internal/kv"

var cmdSUnionStore = def("sunionstore", -3, "write denyoom", 1, -1, 1, "write set slow", "set", "1.0.0",
	"Stores the union of multiple sets in a key.", "O(N) where N is the total number of elements in all given sets.",
	func(x *cmdCtx) error { return setStoreGeneric(x, kv.SetUnion) })
