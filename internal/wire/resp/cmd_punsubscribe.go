package resp

var cmdPUnsubscribe = def("punsubscribe", -1, "pubsub noscript loading stale", 0, 0, 0, "pubsub slow", "pubsub", "2.0.0",
	"Stops listening to messages published to channels that match one or more patterns.",
	"O(N) where N is the number of patterns to unsubscribe.", func(x *cmdCtx) error { return unsubscribe(x, true) })
