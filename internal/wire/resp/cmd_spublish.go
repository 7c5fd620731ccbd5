package resp

var cmdSPublish = def(cmdSpec{
	Name: "spublish", Arity: 3, Flags: "pubsub loading stale fast", FirstKey: 1, LastKey: 1, Step: 1,
	ACL: "pubsub fast", Group: "pubsub", Since: "7.0.0",
	Summary:    "Post a message to a shard channel",
	Complexity: "O(N) where N is the number of clients subscribed to the receiving shard channel.",
	Handler: func(x *cmdCtx) error {
		x.w.Int(int64(x.s.hub.publishShard(x.args[1], x.args[2])))
		return nil
	},
})
