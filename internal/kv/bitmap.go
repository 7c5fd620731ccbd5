package kv

// Bitmaps are string values addressed bit by bit: bit 0 is the most
// significant bit of the first byte. Writing a bit beyond the end grows the
// string with zero bytes; reading one gives 0. In-place changes (SETBIT,
// BITFIELD) keep the key's expiry and emit `setbit`; BITOP replaces its
// destination as SET does (`set`), or deletes it (`del`) when every source
// is empty.

// SetBit sets the bit at offset of the string at key to on (0 or 1),
// creating or growing it, and returns the bit's old value. The offset must
// be within the maximum string size (checked by the caller).
func (tx *Tx) SetBit(key []byte, offset uint64, on byte) (int64, error) {
	m, ok, err := tx.stringForUpdate(key)
	if err != nil {
		return 0, err
	}
	v, grown := growForBits(m.Payload, offset)
	n, shift := offset>>3, 7-offset&7
	old := v[n] >> shift & 1
	if ok && !grown && old == on {
		return int64(old), nil
	}
	v[n] = v[n]&^(1<<shift) | on<<shift
	if err := tx.writeString(key, m, ok, v, 0, true); err != nil {
		return 0, err
	}
	tx.notify(ClassString, "setbit", key)
	return int64(old), nil
}

// growForBits returns a copy of v long enough to hold bit, and whether it
// had to grow.
func growForBits(v []byte, bit uint64) ([]byte, bool) {
	need := int(bit>>3) + 1
	out := make([]byte, max(len(v), need))
	copy(out, v)
	return out, need > len(v)
}

// BitOpKind is a BITOP operation.
type BitOpKind uint8

// The BITOP operations.
const (
	BitAnd BitOpKind = iota
	BitOr
	BitXor
	BitNot // one source only
)

// BitOp stores at dest the bitwise op of the strings at srcs (a missing key
// is an empty string, a shorter one is padded with zero bytes) and returns
// the result's length, that of the longest source. A zero length deletes
// dest.
func (tx *Tx) BitOp(op BitOpKind, dest []byte, srcs [][]byte) (int64, error) {
	vals := make([][]byte, len(srcs))
	maxLen := 0
	for i, k := range srcs {
		v, _, err := tx.Get(k)
		if err != nil {
			return 0, err
		}
		vals[i] = v
		maxLen = max(maxLen, len(v))
	}
	if maxLen == 0 {
		m, ok, err := tx.Lookup(dest)
		if err != nil || !ok {
			return 0, err
		}
		if err := tx.DeleteMeta(dest, m); err != nil {
			return 0, err
		}
		tx.notify(ClassGeneric, "del", dest)
		return 0, nil
	}
	res := make([]byte, maxLen)
	copy(res, vals[0])
	if op == BitNot {
		for i := range res {
			res[i] = ^res[i]
		}
	}
	for _, v := range vals[1:] {
		for i := range res {
			var b byte
			if i < len(v) {
				b = v[i]
			}
			switch op {
			case BitAnd:
				res[i] &= b
			case BitOr:
				res[i] |= b
			case BitXor:
				res[i] ^= b
			}
		}
	}
	if _, err := tx.Set(dest, res, SetOptions{}); err != nil {
		return 0, err
	}
	return int64(maxLen), nil
}

// BitFieldKind is a BITFIELD subcommand.
type BitFieldKind uint8

// The BITFIELD subcommands.
const (
	BitFieldGet BitFieldKind = iota
	BitFieldSet
	BitFieldIncrBy
)

// Overflow is how BITFIELD's SET and INCRBY handle a value that does not
// fit.
type Overflow uint8

// The overflow behaviours.
const (
	OverflowWrap Overflow = iota // keep the low bits (two's complement for signed)
	OverflowSat                  // clamp to the type's minimum or maximum
	OverflowFail                 // do nothing and answer null
)

// BitFieldOp is one subcommand of BITFIELD: an integer of Bits bits (1 to
// 64 signed, 1 to 63 unsigned) at bit Offset; Value is SET's value or
// INCRBY's increment.
type BitFieldOp struct {
	Kind     BitFieldKind
	Signed   bool
	Bits     uint
	Offset   uint64
	Value    int64
	Overflow Overflow
}

// BitFieldResult is one subcommand's reply: the value, or null (Null) for
// an overflow under OverflowFail.
type BitFieldResult struct {
	Value int64
	Null  bool
}

// BitField runs ops in order on the string at key and returns one result
// each: GET the field, SET the old value, INCRBY the new one. With any SET
// or INCRBY the string is created or grown first to hold the farthest
// field written; a changed value emits `setbit`. With only GETs the key is
// read and nothing is written.
func (tx *Tx) BitField(key []byte, ops []BitFieldOp) ([]BitFieldResult, error) {
	var highest uint64
	write := false
	for _, o := range ops {
		if o.Kind != BitFieldGet {
			write = true
			highest = max(highest, o.Offset+uint64(o.Bits)-1)
		}
	}
	out := make([]BitFieldResult, len(ops))
	if !write {
		v, _, err := tx.Get(key)
		if err != nil {
			return nil, err
		}
		for i, o := range ops {
			out[i].Value = readField(v, o)
		}
		return out, nil
	}
	m, ok, err := tx.stringForUpdate(key)
	if err != nil {
		return nil, err
	}
	v, grown := growForBits(m.Payload, highest)
	dirty := !ok || grown
	changes := 0
	for i, o := range ops {
		if o.Kind == BitFieldGet {
			out[i].Value = readField(v, o)
			continue
		}
		r, changed := writeField(v, o)
		out[i] = r
		if !r.Null && (dirty || changed) {
			changes++
		}
	}
	if changes == 0 && !dirty {
		return out, nil
	}
	if err := tx.writeString(key, m, ok, v, 0, true); err != nil {
		return nil, err
	}
	if changes > 0 {
		tx.notify(ClassString, "setbit", key)
	}
	return out, nil
}
