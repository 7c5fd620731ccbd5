package resp

import (
	"github.com/mayfly/mayfly/internal/kv"
)

var cmdGetEx = def(cmdSpec{
	Name: "getex", Arity: -2, Flags: "write fast", FirstKey: 1, LastKey: 1, Step: 1,
	ACL: "write string fast", Group: "string", Since: "6.2.0",
	Summary:    "Returns the string value of a key after setting its expiration time.",
	Complexity: "O(1)",
	Handler: func(x *cmdCtx) error {
		mode := kv.GetExKeep
		var unit int64
		var relative bool
		var expArg []byte
		opts := x.args[2:]
		for i := 0; i < len(opts); i++ {
			a := opts[i]
			next := i+1 < len(opts)
			switch {
			case argEq(a, "persist") && mode == kv.GetExKeep:
				mode = kv.GetExPersist
			case (argEq(a, "ex") || argEq(a, "px") || argEq(a, "exat") || argEq(a, "pxat")) && mode == kv.GetExKeep && next:
				mode = kv.GetExAt
				unit = 1
				if argEq(a, "ex") || argEq(a, "exat") {
					unit = 1000
				}
				relative = argEq(a, "ex") || argEq(a, "px")
				i++
				expArg = opts[i]
			default:
				return errSyntax
			}
		}
		var n int64
		if mode == kv.GetExAt {
			var err error
			if n, err = parseInt(expArg); err != nil {
				// Redis parses the time only once it found a string.
				if _, ok, gerr := x.tx.Get(x.args[1]); gerr != nil || !ok {
					if gerr != nil {
						return gerr
					}
					x.w.Null()
					return nil
				}
				return err
			}
		}
		v, ok, err := x.tx.GetEx(x.args[1], mode, n, unit, relative)
		if err != nil {
			return err
		}
		bulkOrNull(x.w, v, ok)
		return nil
	},
})
