package resp

import "github.com/mayfly/mayfly/internal/kv"

var cmdSwapDB = def(cmdSpec{
	Name: "swapdb", Arity: 3, Flags: "write fast",
	ACL: "keyspace write fast dangerous", Group: "server", Since: "4.0.0",
	Summary:    "Swaps two Redis databases.",
	Complexity: "O(N) where N is the count of clients watching or blocking on keys from both databases.",
	Handler: func(x *cmdCtx) error {
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
		if err := x.tx.SwapDB(int(a), int(b)); err != nil {
			return err
		}
		// Keys waited on in either database may now hold a list or a
		// sorted set: Redis rescans both (scanDatabaseForReadyKeys).
		serveBlockedDB(x, int(a))
		serveBlockedDB(x, int(b))
		x.w.OK()
		return nil
	},
})
