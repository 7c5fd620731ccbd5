package resp

var cmdPSetEx = def("psetex", 4, "write denyoom", 1, 1, 1, "write string slow", "string", "2.6.0",
	"Sets both string value and expiration time in milliseconds of a key. The key is created if it doesn't exist.", "O(1)",
	func(x *cmdCtx) error { return setWithTTL(x, 1) })
