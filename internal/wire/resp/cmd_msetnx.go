package resp

import "github.com/mayfly/mayfly/internal/kv"

var cmdMSetNX = def("msetnx", -3, "write denyoom", 1, -1, 2, "write string slow", "string", "1.0.1",
	"Atomically modifies the string values of one or more keys only when all keys don't exist.",
	"O(N) where N is the number of keys to set.", func(x *cmdCtx) error {
		if len(x.args)%2 != 1 {
			return errArity(x.cmd.name)
		}
		done, err := x.tx.MSet(x.args[1:], kv.SetNX, 0, false)
		if err != nil {
			return err
		}
		x.w.Bool2(done)
		return nil
	})
