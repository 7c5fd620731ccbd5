package resp

// SUNSUBSCRIBE without names leaves every shard channel, and with none it
// still confirms once.
var cmdSUnsubscribe = def(cmdSpec{
	Name: "sunsubscribe", Arity: -1, Flags: "pubsub noscript loading stale", FirstKey: 1, LastKey: -1, Step: 1,
	ACL: "pubsub slow", Group: "pubsub", Since: "7.0.0",
	Summary:    "Stop listening for messages posted to the given shard channels",
	Complexity: "O(N) where N is the number of clients already subscribed to a shard channel.",
	Handler: func(x *cmdCtx) error {
		x.c.pushing = true
		names := make([]string, 0, len(x.args)-1)
		for _, a := range x.args[1:] {
			names = append(names, string(a))
		}
		if len(names) == 0 {
			if names = x.s.hub.listShard(x.c); len(names) == 0 {
				x.w.Push(3)
				x.w.BulkString("sunsubscribe")
				x.w.Null()
				x.w.Int(int64(x.s.hub.shardCount(x.c)))
				return nil
			}
		}
		for _, name := range names {
			n := x.s.hub.unsubscribeShard(x.c, name)
			x.w.Push(3)
			x.w.BulkString("sunsubscribe")
			x.w.BulkString(name)
			x.w.Int(int64(n))
		}
		return nil
	},
})
