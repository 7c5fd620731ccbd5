package resp

var cmdUnsubscribe = def(cmdSpec{
	Name: "unsubscribe", Arity: -1, Flags: "pubsub noscript loading stale",
	ACL: "pubsub slow", Group: "pubsub", Since: "2.0.0",
	Summary:    "Stops listening to messages posted to channels.",
	Complexity: "O(N) where N is the number of channels to unsubscribe.",
	Handler:    func(x *cmdCtx) error { return unsubscribe(x, false) },
})

// unsubscribe is UNSUBSCRIBE and PUNSUBSCRIBE: without names it leaves
// every subscription of its kind, and with none it still confirms once.
func unsubscribe(x *cmdCtx, pat bool) error {
	kind := "unsubscribe"
	if pat {
		kind = "punsubscribe"
	}
	x.c.pushing = true
	names := make([]string, 0, len(x.args)-1)
	for _, a := range x.args[1:] {
		names = append(names, string(a))
	}
	if len(names) == 0 {
		names = x.s.hub.list(x.c, pat)
		if len(names) == 0 {
			x.w.Push(3)
			x.w.BulkString(kind)
			x.w.Null()
			x.w.Int(int64(x.c.subscriptions()))
			return nil
		}
	}
	for _, name := range names {
		n := x.s.hub.unsubscribe(x.c, name, pat)
		x.w.Push(3)
		x.w.BulkString(kind)
		x.w.BulkString(name)
		x.w.Int(int64(n))
	}
	return nil
}
