package resp

import "math/bits"

var cmdBitPos = def(cmdSpec{
	Name: "bitpos", Arity: -3, Flags: "readonly", FirstKey: 1, LastKey: 1, Step: 1,
	ACL: "read bitmap slow", Group: "bitmap", Since: "2.8.7",
	Summary:    "Find first bit set or clear in a string",
	Complexity: "O(N)",
	Handler:    bitPos,
})

// bitPos is BITPOS key bit [start [end [BYTE|BIT]]]: the position of the
// first bit equal to bit within the range (bytes unless BIT), or -1. A
// missing key is all zeros: 0 for a clear bit, -1 for a set one. Without
// an end the string is taken as followed by zeros, so a clear bit past its
// end is found; with an end, a range of only set bits gives -1.
func bitPos(x *cmdCtx) error {
	bit, err := parseInt(x.args[2])
	if err != nil {
		return err
	}
	if bit != 0 && bit != 1 {
		return replyErr("ERR The bit argument must be 1 or 0.")
	}
	v, ok, err := x.tx.Get(x.args[1])
	if err != nil {
		return err
	}
	if !ok {
		x.w.Int(-bit)
		return nil
	}
	var start, end int64
	var firstMask, lastMask byte
	endGiven := false
	switch len(x.args) {
	case 3:
		start, end = 0, int64(len(v))-1
	case 4, 5, 6:
		total := int64(len(v))
		if start, err = parseInt(x.args[3]); err != nil {
			return err
		}
		isBit := false
		if len(x.args) == 6 {
			if isBit, err = parseBitUnit(x.args[5]); err != nil {
				return err
			}
		}
		if len(x.args) >= 5 {
			if end, err = parseInt(x.args[4]); err != nil {
				return err
			}
			endGiven = true
		} else if isBit {
			end = total<<3 + 7
		} else {
			end = total - 1
		}
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
		x.w.Int(-1)
		return nil
	}
	x.w.Int(findBit(v, start, end, byte(bit), firstMask, lastMask, endGiven))
	return nil
}

// findBit searches bytes start..end of v for bit, the bits of the first
// byte under firstMask and of the last under lastMask being outside the
// range.
func findBit(v []byte, start, end int64, bit, firstMask, lastMask byte, endGiven bool) int64 {
	n := end - start + 1
	// masked returns byte i with its out-of-range bits set to what is not
	// searched for.
	masked := func(b, mask byte) byte {
		if bit == 1 {
			return b &^ mask
		}
		return b | mask
	}
	var pos int64
	result := func() int64 {
		if endGiven && bit == 0 && pos == n<<3 {
			return -1
		}
		if pos != -1 {
			pos += start << 3
		}
		return pos
	}
	if firstMask != 0 {
		c := masked(v[start], firstMask)
		if lastMask != 0 && n == 1 {
			c = masked(c, lastMask)
		}
		pos = firstBit([]byte{c}, bit)
		if n == 1 || (pos != -1 && pos != 8) {
			return result()
		}
		start++
		n--
	}
	cur := n
	if lastMask != 0 {
		cur--
	}
	if cur > 0 {
		pos = firstBit(v[start:start+cur], bit)
		if n == cur || (pos != -1 && pos != cur<<3) {
			return result()
		}
		start += cur
		n -= cur
	}
	pos = firstBit([]byte{masked(v[end], lastMask)}, bit)
	return result()
}

// firstBit is the position of the first bit equal to bit in b: for a set
// bit -1 when there is none, for a clear bit len(b)*8 (the zeros that
// follow).
func firstBit(b []byte, bit byte) int64 {
	for i, c := range b {
		if bit == 1 && c != 0 {
			return int64(i)<<3 + int64(bits.LeadingZeros8(c))
		}
		if bit == 0 && c != 0xff {
			return int64(i)<<3 + int64(bits.LeadingZeros8(^c))
		}
	}
	if bit == 1 {
		return -1
	}
	return int64(len(b)) << 3
}
