package resp

var cmdXReadGroup = def(cmdSpec{
	Name: "xreadgroup", Arity: -7, Flags: "write blocking movablekeys",
	ACL: "write stream slow blocking", Group: "stream", Since: "5.0.0",
	Summary:    "Return new entries from a stream using a consumer group, or access the history of the pending entries for a given consumer. Can block.",
	Complexity: "For each stream mentioned: O(M) with M being the number of elements returned. If M is constant (e.g. always asking for the first 10 elements with COUNT), you can consider it O(1). On the other side when XREADGROUP blocks, XADD will pay the O(N) time in order to serve the N clients blocked on the stream getting new data.",
	Handler:    func(x *cmdCtx) error { return xreadGeneric(x, true) },
})
