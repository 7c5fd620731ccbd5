package resp

var cmdSubscribe = def("subscribe", -2, "pubsub noscript loading stale", 0, 0, 0, "pubsub slow", "pubsub", "2.0.0",
	"Listens for messages published to channels.", "O(N) where N is the number of channels to subscribe to.",
	func(x *cmdCtx) error { return subscribe(x, false) })

// subscribe is SUBSCRIBE and PSUBSCRIBE: one confirmation per name.
func subscribe(x *cmdCtx, pat bool) error {
	kind := "subscribe"
	if pat {
		kind = "psubscribe"
	}
	x.c.startPusher()
	for _, name := range x.args[1:] {
		n := x.s.hub.subscribe(x.c, string(name), pat)
		x.w.Push(3)
		x.w.BulkString(kind)
		x.w.Bulk(name)
		x.w.Int(int64(n))
	}
	return nil
}
