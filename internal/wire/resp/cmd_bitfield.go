package resp

import "github.com/mayfly/mayfly/internal/kv"

var cmdBitField = def(cmdSpec{
	Name: "bitfield", Arity: -2, Flags: "write denyoom", FirstKey: 1, LastKey: 1, Step: 1,
	ACL: "write bitmap slow", Group: "bitmap", Since: "3.2.0",
	Summary:    "Perform arbitrary bitfield integer operations on strings",
	Complexity: "O(1) for each subcommand specified",
	Handler:    func(x *cmdCtx) error { return bitField(x, false) },
})

var errBitfieldType = replyErr("ERR Invalid bitfield type. Use something like i16 u8. Note that u64 is not supported but i64 is.")

// bitField is BITFIELD key [GET type offset | SET type offset value |
// INCRBY type offset increment | OVERFLOW WRAP|SAT|FAIL]...; readOnly
// (BITFIELD_RO) refuses SET and INCRBY. Every subcommand is parsed before
// the key is looked at; OVERFLOW applies to the SET and INCRBY after it.
func bitField(x *cmdCtx, readOnly bool) error {
	var ops []kv.BitFieldOp
	ow := kv.OverflowWrap
	write := false
	for j := 2; j < len(x.args); j++ {
		rem := len(x.args) - j - 1
		sub := x.args[j]
		var op kv.BitFieldOp
		switch {
		case argEq(sub, "get") && rem >= 2:
			op.Kind = kv.BitFieldGet
		case argEq(sub, "set") && rem >= 3:
			op.Kind = kv.BitFieldSet
		case argEq(sub, "incrby") && rem >= 3:
			op.Kind = kv.BitFieldIncrBy
		case argEq(sub, "overflow") && rem >= 1:
			j++
			switch a := x.args[j]; {
			case argEq(a, "wrap"):
				ow = kv.OverflowWrap
			case argEq(a, "sat"):
				ow = kv.OverflowSat
			case argEq(a, "fail"):
				ow = kv.OverflowFail
			default:
				return replyErr("ERR Invalid OVERFLOW type specified")
			}
			continue
		default:
			return errSyntax
		}
		signed, bits, err := parseBitfieldType(x.args[j+1])
		if err != nil {
			return err
		}
		off, err := parseBitOffset(x, x.args[j+2], bits)
		if err != nil {
			return err
		}
		op.Signed, op.Bits, op.Offset, op.Overflow = signed, bits, off, ow
		if op.Kind != kv.BitFieldGet {
			write = true
			if op.Value, err = parseInt(x.args[j+3]); err != nil {
				return err
			}
			j++
		}
		ops = append(ops, op)
		j += 2
	}
	if write && readOnly {
		return replyErr("ERR BITFIELD_RO only supports the GET subcommand")
	}
	res, err := x.tx.BitField(x.args[1], ops)
	if err != nil {
		return err
	}
	x.w.Array(len(res))
	for _, r := range res {
		if r.Null {
			x.w.Null()
		} else {
			x.w.Int(r.Value)
		}
	}
	return nil
}

// parseBitfieldType parses i1..i64 or u1..u63 (the prefix in lowercase).
func parseBitfieldType(b []byte) (bool, uint, error) {
	if len(b) == 0 || (b[0] != 'i' && b[0] != 'u') {
		return false, 0, errBitfieldType
	}
	signed := b[0] == 'i'
	n, ok := kv.ParseInt(b[1:])
	if !ok || n < 1 || (signed && n > 64) || (!signed && n > 63) {
		return false, 0, errBitfieldType
	}
	return signed, uint(n), nil
}
