package resp

import "github.com/mayfly/mayfly/internal/kv"

var cmdHGetDel = def("hgetdel", -5, "write fast", 1, 1, 1, "write hash fast", "hash", "8.0.0",
	"Returns the value of a field and deletes it from the hash.", "O(N) where N is the number of specified fields",
	func(x *cmdCtx) error {
		if _, err := x.tx.CheckType(x.args[1], kv.TypeHash); err != nil {
			return err
		}
		fields, err := parseFields(x.args, 2, numFieldsReadMsg)
		if err != nil {
			return err
		}
		vals, err := x.tx.HGetDel(x.args[1], fields)
		if err != nil {
			return err
		}
		writeBulksOrNull(x.w, vals)
		return nil
	})
