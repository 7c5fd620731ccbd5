package resp

var cmdHPExpireAt = def("hpexpireat", -6, "write denyoom fast", 1, 1, 1, "write hash fast", "hash", "7.4.0",
	"Set expiry for hash field using an absolute Unix timestamp (milliseconds)", "O(N) where N is the number of specified fields",
	func(x *cmdCtx) error { return hexpireGeneric(x, 1, false) })
