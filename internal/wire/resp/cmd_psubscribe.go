package resp

var cmdPSubscribe = def(cmdSpec{
	Name: "psubscribe", Arity: -2, Flags: "pubsub noscript loading stale",
	ACL: "pubsub slow", Group: "pubsub", Since: "2.0.0",
	Summary:    "Listens for messages published to channels that match one or more patterns.",
	Complexity: "O(N) where N is the number of patterns to subscribe to.",
	Handler:    func(x *cmdCtx) error { return subscribe(x, true) },
})
