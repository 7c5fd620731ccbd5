package resp

import "github.com/mayfly/mayfly/internal/kv"

var cmdSInterStore = def("sinterstore", -3, "write denyoom", 1, -1, 1, "write set slow", "set", "1.0.0",
	"Stores the intersect of multiple sets in a key.",
	"O(N*M) worst case where N is the cardinality of the smallest set and M is the number of sets.",
	func(x *cmdCtx) error { return setStoreGeneric(x, kv.SetInter) })
