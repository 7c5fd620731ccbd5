package resp

var cmdReadWrite = def(cmdSpec{
	Name: "readwrite", Arity: 1, Flags: "loading stale fast",
	ACL: "fast connection", Group: "cluster", Since: "3.0.0",
	Summary:    "Disables read queries for a connection to a cluster replica node",
	Complexity: "O(1)",
	Handler:    readOnlyNoOp,
})
