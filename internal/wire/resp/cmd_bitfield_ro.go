package resp

var cmdBitFieldRO = def(cmdSpec{
	Name: "bitfield_ro", Arity: -2, Flags: "readonly fast", FirstKey: 1, LastKey: 1, Step: 1,
	ACL: "read bitmap fast", Group: "bitmap", Since: "6.0.0",
	Summary:    "Perform arbitrary bitfield integer operations on strings. Read-only variant of BITFIELD",
	Complexity: "O(1) for each subcommand specified",
	Handler:    func(x *cmdCtx) error { return bitField(x, true) },
})
