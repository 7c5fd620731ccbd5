package resp

import "github.com/mayfly/mayfly/internal/kv"

var cmdMSetNX = def(cmdSpec{
	Name: "msetnx", Arity: -3, Flags: "write denyoom", FirstKey: 1, LastKey: -1, Step: 2,
	ACL: "write string slow", Group: "string", Since: "1.0.1",
	Summary:    "Atomically modifies the string values of one or more keys only when all keys don't exist.",
	Complexity: "O(N) where N is the number of keys to set.",
	Handler: func(x *cmdCtx) error {
		if len(x.args)%2 != 1 {
			return errArity(x.cmd.name)
		}
		done, err := x.tx.MSet(x.args[1:], kv.SetNX, 0, false)
		if err != nil {
			return err
		}
		x.w.Bool2(done)
		return nil
	},
})
