package resp

var cmdSubscribe = def(cmdSpec{
	Name: "subscribe", Arity: -2, Flags: "pubsub noscript loading stale",
	ACL: "pubsub slow", Group: "pubsub", Since: "2.0.0",
	Summary:    "Listens for messages published to channels.",
	Complexity: "O(N) where N is the number of channels to subscribe to.",
	Handler:    func(x *cmdCtx) error { return subscribe(x, false) },
})

// subscribe is SUBSCRIBE and PSUBSCRIBE: one confirmation per name.
func subscribe(x *cmdCtx, pat bool) error {
	kind := "subscribe"
	if pat {
		kind = "psubscribe"
	}
	x.c.startPusher()
	x.c.pushing = true
	for _, name := range x.args[1:] {
		n := x.s.hub.subscribe(x.c, string(name), pat)
		x.w.Push(3)
		x.w.BulkString(kind)
		x.w.Bulk(name)
		x.w.Int(int64(n))
	}
	return nil
}
