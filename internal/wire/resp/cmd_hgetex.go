package resp

import "github.com/mayfly/mayfly/internal/kv"

var cmdHGetEx = def(cmdSpec{
	Name: "hgetex", Arity: -5, Flags: "write fast", FirstKey: 1, LastKey: 1, Step: 1,
	ACL: "write hash fast", Group: "hash", Since: "8.0.0",
	Summary:    "Get the value of one or more fields of a given hash key, and optionally set their expiration.",
	Complexity: "O(N) where N is the number of specified fields",
	Handler: func(x *cmdCtx) error {
		if _, err := x.tx.CheckType(x.args[1], kv.TypeHash); err != nil {
			return err
		}
		mode, fieldsAt := kv.HGetExKeep, 2
		var at int64
		a := x.args[2]
		switch {
		case argEq(a, "persist"):
			mode, fieldsAt = kv.HGetExPersist, 3
		case argEq(a, "ex") || argEq(a, "px") || argEq(a, "exat") || argEq(a, "pxat"):
			mode, fieldsAt = kv.HGetExAt, 4
			unit := int64(1)
			if argEq(a, "ex") || argEq(a, "exat") {
				unit = 1000
			}
			var err error
			if at, err = parseFieldExpire(x, x.args[3], unit, argEq(a, "ex") || argEq(a, "px")); err != nil {
				return err
			}
		}
		fields, err := parseFields(x.args, fieldsAt, numFieldsReadMsg)
		if err != nil {
			return err
		}
		vals, err := x.tx.HGetEx(x.args[1], mode, at, fields)
		if err != nil {
			return err
		}
		writeBulksOrNull(x.w, vals)
		return nil
	},
})
