package resp

var cmdHPExpireTime = def("hpexpiretime", -5, "readonly fast", 1, 1, 1, "read hash fast", "hash", "7.4.0",
	"Returns the expiration time of a hash field as a Unix timestamp, in msec.", "O(N) where N is the number of specified fields",
	func(x *cmdCtx) error { return httlGeneric(x, 1, false) })
