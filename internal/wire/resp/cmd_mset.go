package resp

import "github.com/mayfly/mayfly/internal/kv"

var cmdMSet = def("mset", -3, "write denyoom", 1, -1, 2, "write string slow", "string", "1.0.1",
	"Atomically creates or modifies the string values of one or more keys.", "O(N) where N is the number of keys to set.",
	func(x *cmdCtx) error {
		if len(x.args)%2 != 1 {
			return errArity(x.cmd.name)
		}
		if _, err := x.tx.MSet(x.args[1:], kv.SetAlways, 0, false); err != nil {
			return err
		}
		x.w.OK()
		return nil
	})
