package resp

var cmdSSubscribe = def(cmdSpec{
	Name: "ssubscribe", Arity: -2, Flags: "pubsub noscript loading stale", FirstKey: 1, LastKey: -1, Step: 1,
	ACL: "pubsub slow", Group: "pubsub", Since: "7.0.0",
	Summary:    "Listen for messages published to the given shard channels",
	Complexity: "O(N) where N is the number of shard channels to subscribe to.",
	Handler: func(x *cmdCtx) error {
		x.c.startPusher()
		x.c.pushing = true
		for _, name := range x.args[1:] {
			n := x.s.hub.subscribeShard(x.c, string(name))
			x.w.Push(3)
			x.w.BulkString("ssubscribe")
			x.w.Bulk(name)
			x.w.Int(int64(n))
		}
		return nil
	},
})
