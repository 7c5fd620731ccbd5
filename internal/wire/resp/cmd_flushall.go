package resp

import "github.com/mayfly/mayfly/internal/kv"

var cmdFlushAll = def("flushall", -1, "write", 0, 0, 0, "keyspace write slow dangerous", "server", "1.0.0",
	"Removes all keys from all databases.", "O(N) where N is the total number of keys in all databases",
	func(x *cmdCtx) error {
		if err := flushMode(x); err != nil {
			return err
		}
		for db := 0; db < kv.NumDBs; db++ {
			if err := x.s.watches.touchVisible(x.tx, db); err != nil {
				return err
			}
		}
		if err := x.tx.FlushAll(); err != nil {
			return err
		}
		x.w.OK()
		return nil
	})
