package resp

import "github.com/mayfly/mayfly/internal/kv"

var cmdSetNX = def(cmdSpec{
	Name: "setnx", Arity: 3, Flags: "write denyoom fast", FirstKey: 1, LastKey: 1, Step: 1,
	ACL: "write string fast", Group: "string", Since: "1.0.0",
	Summary:    "Set the string value of a key only when the key doesn't exist.",
	Complexity: "O(1)",
	Handler: func(x *cmdCtx) error {
		r, err := x.tx.Set(x.args[1], x.args[2], kv.SetOptions{Cond: kv.SetNX})
		if err != nil {
			return err
		}
		x.w.Bool2(r.Done)
		return nil
	},
})
