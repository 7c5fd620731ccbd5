package resp

import "github.com/mayfly/mayfly/internal/kv"

var cmdMSet = def(cmdSpec{
	Name: "mset", Arity: -3, Flags: "write denyoom", FirstKey: 1, LastKey: -1, Step: 2,
	ACL: "write string slow", Group: "string", Since: "1.0.1",
	Summary:    "Atomically creates or modifies the string values of one or more keys.",
	Complexity: "O(N) where N is the number of keys to set.",
	Handler: func(x *cmdCtx) error {
		if len(x.args)%2 != 1 {
			return errArity(x.cmd.name)
		}
		if _, err := x.tx.MSet(x.args[1:], kv.SetAlways, 0, false); err != nil {
			return err
		}
		x.w.OK()
		return nil
	},
})
