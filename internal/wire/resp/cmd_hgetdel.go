package resp

import "github.com/mayfly/mayfly/internal/kv"

var cmdHGetDel = def(cmdSpec{
	Name: "hgetdel", Arity: -5, Flags: "write fast", FirstKey: 1, LastKey: 1, Step: 1,
	ACL: "write hash fast", Group: "hash", Since: "8.0.0",
	Summary:    "Returns the value of a field and deletes it from the hash.",
	Complexity: "O(N) where N is the number of specified fields",
	Handler: func(x *cmdCtx) error {
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
	},
})
