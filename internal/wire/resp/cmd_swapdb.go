package resp

import "github.com/mayfly/mayfly/internal/kv"

var cmdSwapDB = def("swapdb", 3, "write fast", 0, 0, 0, "keyspace write fast dangerous", "server", "4.0.0",
	"Swaps two Redis databases.", "O(N) where N is the count of clients watching or blocking on keys from both databases.",
	func(x *cmdCtx) error {
		a, ok := kv.ParseInt(x.args[1])
		if !ok {
			return replyErr("ERR invalid first DB index")
		}
		b, ok := kv.ParseInt(x.args[2])
		if !ok {
			return replyErr("ERR invalid second DB index")
		}
		if a < 0 || a >= kv.NumDBs || b < 0 || b >= kv.NumDBs {
			return errDBIndex
		}
		if err := x.s.watches.touchVisible(x.tx, int(a), int(b)); err != nil {
			return err
		}
		if err := x.tx.SwapDB(int(a), int(b)); err != nil {
			return err
		}
		// Keys waited on in either database may now hold a list or a
		// sorted set: Redis rescans both (scanDatabaseForReadyKeys).
		serveBlockedDB(x, int(a))
		serveBlockedDB(x, int(b))
		x.w.OK()
		return nil
	})
