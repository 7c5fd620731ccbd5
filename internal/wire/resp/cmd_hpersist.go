package resp

import "github.com/mayfly/mayfly/internal/kv"

var cmdHPersist = def(cmdSpec{
	Name: "hpersist", Arity: -5, Flags: "write fast", FirstKey: 1, LastKey: 1, Step: 1,
	ACL: "write hash fast", Group: "hash", Since: "7.4.0",
	Summary:    "Removes the expiration time for each specified field",
	Complexity: "O(N) where N is the number of specified fields",
	Handler: func(x *cmdCtx) error {
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
	},
})
