package resp

import "github.com/mayfly/mayfly/internal/kv"

var cmdTTL = def("ttl", 2, "readonly fast", 1, 1, 1, "keyspace read fast", "generic", "1.0.0",
	"Returns the expiration time in seconds of a key.", "O(1)", func(x *cmdCtx) error {
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
	})
