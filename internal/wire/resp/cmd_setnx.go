package resp

import "github.com/mayfly/mayfly/internal/kv"

var cmdSetNX = def("setnx", 3, "write denyoom fast", 1, 1, 1, "write string fast", "string", "1.0.0",
	"Set the string value of a key only when the key doesn't exist.", "O(1)", func(x *cmdCtx) error {
		r, err := x.tx.Set(x.args[1], x.args[2], kv.SetOptions{Cond: kv.SetNX})
		if err != nil {
			return err
		}
		x.w.Bool2(r.Done)
		return nil
	})
