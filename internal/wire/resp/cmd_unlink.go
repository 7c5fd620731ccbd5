package resp

var cmdUnlink = def(cmdSpec{
	Name: "unlink", Arity: -2, Flags: "write fast", FirstKey: 1, LastKey: -1, Step: 1,
	ACL: "keyspace write fast", Group: "generic", Since: "4.0.0",
	Summary:    "Asynchronously deletes one or more keys.",
	Complexity: "O(1) for each key removed regardless of its size.",
	Handler:    delKeys,
})
