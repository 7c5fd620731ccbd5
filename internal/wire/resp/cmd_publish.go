package resp

var cmdPublish = def("publish", 3, "pubsub loading stale fast", 0, 0, 0, "pubsub fast", "pubsub", "2.0.0",
	"Posts a message to a channel.",
	"O(N+M) where N is the number of clients subscribed to the receiving channel and M is the total number of subscribed patterns (by any client).",
	func(x *cmdCtx) error {
		x.w.Int(int64(x.s.hub.publish(x.args[1], x.args[2])))
		return nil
	})
