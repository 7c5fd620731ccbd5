package resp

var cmdPUnsubscribe = def(cmdSpec{
	Name: "punsubscribe", Arity: -1, Flags: "pubsub noscript loading stale",
	ACL: "pubsub slow", Group: "pubsub", Since: "2.0.0",
	Summary:    "Stops listening to messages published to channels that match one or more patterns.",
	Complexity: "O(N) where N is the number of patterns to unsubscribe.",
	Handler:    func(x *cmdCtx) error { return unsubscribe(x, true) },
})
