package resp

import "github.com/mayfly/mayfly/internal/kv"

var cmdGetSet = def("getset", 3, "write denyoom fast", 1, 1, 1, "write string fast", "string", "1.0.0",
	"Returns the previous string value of a key after setting it to a new value.", "O(1)",
	func(x *cmdCtx) error {
		r, err := x.tx.Set(x.args[1], x.args[2], kv.SetOptions{Get: true})
		if err != nil {
			return err
		}
		bulkOrNull(x.w, r.Old, r.OldFound)
		return nil
	})
