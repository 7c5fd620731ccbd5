package resp

var cmdAsking = def(cmdSpec{
	Name: "asking", Arity: 1, Flags: "fast",
	ACL: "fast connection", Group: "cluster", Since: "3.0.0",
	Summary:    "Sent by cluster clients after an -ASK redirect",
	Complexity: "O(1)",
	Handler:    func(*cmdCtx) error { return errClusterDisabled },
})
