package kv

import "math"

// The integer fields of BITFIELD: big endian bit order from the field's
// first bit, signed fields in two's complement.

// fieldBits reads bits bits of v from bit offset on, as an unsigned
// integer; bits beyond v read as 0.
func fieldBits(v []byte, offset uint64, bits uint) uint64 {
	var x uint64
	for j := uint(0); j < bits; j++ {
		n := (offset + uint64(j)) >> 3
		var bit uint64
		if n < uint64(len(v)) {
			bit = uint64(v[n]>>(7-(offset+uint64(j))&7)) & 1
		}
		x = x<<1 | bit
	}
	return x
}

// putFieldBits writes the low bits bits of x into v from bit offset on; v
// holds them.
func putFieldBits(v []byte, offset uint64, bits uint, x uint64) {
	for j := uint(0); j < bits; j++ {
		bit := byte(x>>(bits-1-j)) & 1
		pos := offset + uint64(j)
		shift := 7 - pos&7
		v[pos>>3] = v[pos>>3]&^(1<<shift) | bit<<shift
	}
}

// readField is the value of the field o addresses.
func readField(v []byte, o BitFieldOp) int64 {
	x := fieldBits(v, o.Offset, o.Bits)
	if !o.Signed {
		return int64(x)
	}
	if o.Bits < 64 && x&(1<<(o.Bits-1)) != 0 {
		x |= math.MaxUint64 << o.Bits
	}
	return int64(x)
}

// writeField runs the SET or INCRBY o on v (which holds the field) and
// returns its reply and whether the stored value changed.
func writeField(v []byte, o BitFieldOp) (BitFieldResult, bool) {
	old := readField(v, o)
	var nv, reply int64
	var overflow bool
	if o.Signed {
		if o.Kind == BitFieldIncrBy {
			w, of := signedOverflow(old, o.Value, o.Bits, o.Overflow)
			nv, overflow = old+o.Value, of
			if of {
				nv = w
			}
			reply = nv
		} else {
			w, of := signedOverflow(o.Value, 0, o.Bits, o.Overflow)
			nv, overflow = o.Value, of
			if of {
				nv = w
			}
			reply = old
		}
	} else {
		uold := uint64(old)
		var unv uint64
		if o.Kind == BitFieldIncrBy {
			w, of := unsignedOverflow(uold, o.Value, o.Bits, o.Overflow)
			unv, overflow = uold+uint64(o.Value), of
			if of {
				unv = w
			}
			reply = int64(unv)
		} else {
			w, of := unsignedOverflow(uint64(o.Value), 0, o.Bits, o.Overflow)
			unv, overflow = uint64(o.Value), of
			if of {
				unv = w
			}
			reply = old
		}
		nv = int64(unv)
	}
	if overflow && o.Overflow == OverflowFail {
		return BitFieldResult{Null: true}, false
	}
	putFieldBits(v, o.Offset, o.Bits, uint64(nv))
	return BitFieldResult{Value: reply}, old != nv
}

// unsignedOverflow reports whether value+incr leaves the range of an
// unsigned field of bits bits (a value already outside it counts), and the
// value to store then: wrapped to the low bits, or clamped to 0 or the
// maximum under OverflowSat.
func unsignedOverflow(value uint64, incr int64, bits uint, ow Overflow) (uint64, bool) {
	maxv := uint64(1)<<bits - 1
	maxIncr := int64(maxv - value)
	minIncr := -int64(value)
	wrap := (value + uint64(incr)) & maxv
	switch {
	case value > maxv || (incr > 0 && incr > maxIncr):
		if ow == OverflowSat {
			return maxv, true
		}
		return wrap, true
	case incr < 0 && incr < minIncr:
		if ow == OverflowSat {
			return 0, true
		}
		return wrap, true
	}
	return 0, false
}

// signedOverflow is unsignedOverflow for a signed field of bits bits: a
// wrapped value keeps the low bits with the field's sign bit extended.
func signedOverflow(value, incr int64, bits uint, ow Overflow) (int64, bool) {
	maxv := int64(math.MaxInt64)
	if bits < 64 {
		maxv = 1<<(bits-1) - 1
	}
	minv := -maxv - 1
	maxIncr := int64(uint64(maxv) - uint64(value))
	minIncr := minv - value
	wrapped := func() int64 {
		c := uint64(value) + uint64(incr)
		if bits < 64 {
			mask := uint64(math.MaxUint64) << bits
			if c&(1<<(bits-1)) != 0 {
				c |= mask
			} else {
				c &^= mask
			}
		}
		return int64(c)
	}
	switch {
	case value > maxv || (bits != 64 && incr > maxIncr) || (value >= 0 && incr > 0 && incr > maxIncr):
		if ow == OverflowSat {
			return maxv, true
		}
		return wrapped(), true
	case value < minv || (bits != 64 && incr < minIncr) || (value < 0 && incr < 0 && incr < minIncr):
		if ow == OverflowSat {
			return minv, true
		}
		return wrapped(), true
	}
	return 0, false
}
