package resp

import "github.com/mayfly/mayfly/internal/kv"

var cmdHPersist = def("hpersist", -5, "write fast", 1, 1, 1, "write hash fast", "hash", "7.4.0",
	"Removes the expiration time for each specified field", "O(N) where N is the number of specified fields",
	func(x *cmdCtx) error {
		if _, err := x.tx.CheckType(x.args[1], kv.TypeHash); err != nil {
			return err
		}
		fields, err := parseFields(x.args, 2, numFieldsReadMsg)
		if err != nil {
			return err
		}
		codes, err := x.tx.HPersist(x.args[1], fields)
		if err != nil {
			return err
		}
		writeInts(x.w, codes)
		return nil
	})
