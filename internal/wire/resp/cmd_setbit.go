package resp

var errBitValue = replyErr("ERR bit is not an integer or out of range")

var cmdSetBit = def(cmdSpec{
	Name: "setbit", Arity: 4, Flags: "write denyoom", FirstKey: 1, LastKey: 1, Step: 1,
	ACL: "write bitmap slow", Group: "bitmap", Since: "2.2.0",
	Summary:    "Sets or clears the bit at offset in the string value stored at key",
	Complexity: "O(1)",
	Handler: func(x *cmdCtx) error {
		off, err := parseBitOffset(x, x.args[2], 0)
		if err != nil {
			return err
		}
		on, err := parseInt(x.args[3])
		if err != nil || on&^1 != 0 {
			return errBitValue
		}
		old, err := x.tx.SetBit(x.args[1], off, byte(on))
		if err != nil {
			return err
		}
		x.w.Int(old)
		return nil
	},
})
