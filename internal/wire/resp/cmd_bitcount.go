package resp

import "math/bits"

var cmdBitCount = def(cmdSpec{
	Name: "bitcount", Arity: -2, Flags: "readonly", FirstKey: 1, LastKey: 1, Step: 1,
	ACL: "read bitmap slow", Group: "bitmap", Since: "2.6.0",
	Summary:    "Count set bits in a string",
	Complexity: "O(N)",
	Handler:    bitCount,
})

// bitCount is BITCOUNT key [start end [BYTE|BIT]]: the set bits of the
// string, or of the range of bytes (or bits) from start to end inclusive,
// negative positions counting from the end. A missing key counts 0 before
// the arguments are looked at.
func bitCount(x *cmdCtx) error {
	v, ok, err := x.tx.Get(x.args[1])
	if err != nil {
		return err
	}
	if !ok {
		x.w.Int(0)
		return nil
	}
	var start, end int64
	var firstMask, lastMask byte
	switch len(x.args) {
	case 2:
		start, end = 0, int64(len(v))-1
	case 4, 5:
		if start, err = parseInt(x.args[2]); err != nil {
			return err
		}
		if end, err = parseInt(x.args[3]); err != nil {
			return err
		}
		if start < 0 && end < 0 && start > end {
			x.w.Int(0)
			return nil
		}
		isBit := false
		if len(x.args) == 5 {
			if isBit, err = parseBitUnit(x.args[4]); err != nil {
				return err
			}
		}
		total := int64(len(v))
		if isBit {
			total <<= 3
		}
		start, end = clampRange(start, end, total)
		if isBit && start <= end {
			firstMask = ^byte(1<<(8-start&7) - 1)
			lastMask = byte(1<<(7-end&7) - 1)
			start >>= 3
			end >>= 3
		}
	default:
		return errSyntax
	}
	if start > end {
		x.w.Int(0)
		return nil
	}
	n := 0
	for _, b := range v[start : end+1] {
		n += bits.OnesCount8(b)
	}
	n -= bits.OnesCount8(v[start]&firstMask) + bits.OnesCount8(v[end]&lastMask)
	x.w.Int(int64(n))
	return nil
}

// clampRange turns start and end (negative ones counting back from total)
// into positions within [0, total-1]; start > end means empty.
func clampRange(start, end, total int64) (int64, int64) {
	if start < 0 {
		start += total
	}
	if end < 0 {
		end += total
	}
	start, end = max(start, 0), max(end, 0)
	if end >= total {
		end = total - 1
	}
	return start, end
}
