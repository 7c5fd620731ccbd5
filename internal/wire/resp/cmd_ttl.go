package resp

import "github.com/mayfly/mayfly/internal/kv"

var cmdTTL = def(cmdSpec{
	Name: "ttl", Arity: 2, Flags: "readonly fast", FirstKey: 1, LastKey: 1, Step: 1,
	ACL: "keyspace read fast", Group: "generic", Since: "1.0.0",
	Summary:    "Returns the expiration time in seconds of a key.",
	Complexity: "O(1)",
	Handler: func(x *cmdCtx) error {
		at, st, err := x.tx.ExpireAt(x.args[1])
		if err != nil {
			return err
		}
		if st != kv.TTLVolatile {
			x.w.Int(int64(st))
			return nil
		}
		x.w.Int((max(at-x.tx.Now(), 0) + 500) / 1000)
		return nil
	},
})
