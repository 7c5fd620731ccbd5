package resp

var cmdPublish = def(cmdSpec{
	Name: "publish", Arity: 3, Flags: "pubsub loading stale fast",
	ACL: "pubsub fast", Group: "pubsub", Since: "2.0.0",
	Summary:    "Posts a message to a channel.",
	Complexity: "O(N+M) where N is the number of clients subscribed to the receiving channel and M is the total number of subscribed patterns (by any client).",
	Handler: func(x *cmdCtx) error {
		x.w.Int(int64(x.s.hub.publish(x.args[1], x.args[2])))
		return nil
	},
})
