package resp

var cmdXRevRange = def(cmdSpec{
	Name: "xrevrange", Arity: -4, Flags: "readonly", FirstKey: 1, LastKey: 1, Step: 1,
	ACL: "read stream slow", Group: "stream", Since: "5.0.0",
	Summary:    "Return a range of elements in a stream, with IDs matching the specified IDs interval, in reverse order (from greater to smaller IDs) compared to XRANGE",
	Complexity: "O(N) with N being the number of elements returned. If N is constant (e.g. always asking for the first 10 elements with COUNT), you can consider it O(1).",
	Handler:    func(x *cmdCtx) error { return xrangeGeneric(x, true) },
})
