package resp

var cmdGetBit = def(cmdSpec{
	Name: "getbit", Arity: 3, Flags: "readonly fast", FirstKey: 1, LastKey: 1, Step: 1,
	ACL: "read bitmap fast", Group: "bitmap", Since: "2.2.0",
	Summary:    "Returns the bit value at offset in the string value stored at key",
	Complexity: "O(1)",
	Handler: func(x *cmdCtx) error {
		off, err := parseBitOffset(x, x.args[2], 0)
		if err != nil {
			return err
		}
		v, _, err := x.tx.Get(x.args[1])
		if err != nil {
			return err
		}
		var bit int64
		if n := off >> 3; n < uint64(len(v)) {
			bit = int64(v[n]>>(7-off&7)) & 1
		}
		x.w.Int(bit)
		return nil
	},
})
