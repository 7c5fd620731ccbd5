package resp

var cmdHPTTL = def("hpttl", -5, "readonly fast", 1, 1, 1, "read hash fast", "hash", "7.4.0",
	"Returns the TTL in milliseconds of a hash field.", "O(N) where N is the number of specified fields",
	func(x *cmdCtx) error { return httlGeneric(x, 1, true) })
