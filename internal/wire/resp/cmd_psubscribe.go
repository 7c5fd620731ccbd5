package resp

var cmdPSubscribe = def("psubscribe", -2, "pubsub noscript loading stale", 0, 0, 0, "pubsub slow", "pubsub", "2.0.0",
	"Listens for messages published to channels that match one or more patterns.",
	"O(N) where N is the number of patterns to subscribe to.", func(x *cmdCtx) error { return subscribe(x, true) })
