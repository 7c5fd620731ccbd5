package resp

var cmdSubstr = def(cmdSpec{
	Name: "substr", Arity: 4, Flags: "readonly", FirstKey: 1, LastKey: 1, Step: 1,
	ACL: "read string slow", Group: "string", Since: "1.0.0",
	Summary:    "Returns a substring from a string value.",
	Complexity: "O(N) where N is the length of the returned string.",
	Handler:    getRange,
})
