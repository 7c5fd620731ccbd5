package resp

import "github.com/mayfly/mayfly/internal/kv"

var cmdExpireTime = def("expiretime", 2, "readonly fast", 1, 1, 1, "keyspace read fast", "generic", "7.0.0",
	"Returns the expiration time of a key as a Unix timestamp.", "O(1)", func(x *cmdCtx) error {
		at, st, err := x.tx.ExpireAt(x.args[1])
		if err != nil {
			return err
		}
		if st != kv.TTLVolatile {
			x.w.Int(int64(st))
			return nil
		}
		x.w.Int((at + 500) / 1000)
		return nil
	})
