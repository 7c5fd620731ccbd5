package keycodec

import (
	"encoding/binary"
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// DecodeValue decodes the value encoded at the start of src, which must have
// been encoded with the same desc, and returns it with the bytes that follow
// it (the next parts of a compound key).
//
// Decoding gives back the value up to the canonicalisation the encoding
// performs: equal numbers must encode identically, so a number comes back
// as int64 when it is an integer in the int64 range, as float64 when a
// float64 holds it exactly (NaN, ±Inf and -0 included, -0 becoming 0), and
// as bson.Decimal128 otherwise, whatever its original BSON type;
// bson.Symbol comes back as string; null as nil; documents as bson.D,
// arrays as bson.A, a code-with-scope scope as bson.D. Index entries point
// to the documents, which keep the original types.
//
// Input that is not a canonical encoding gives an error wrapping
// ErrCorrupt; when decoding succeeds, AppendValue of the result reproduces
// the consumed bytes exactly.
func DecodeValue(src []byte, desc bool) (v any, rest []byte, err error) {
	d := decoder{src: src}
	if desc {
		d.mask = 0xFF
	}
	v, err = d.value(0)
	if err != nil {
		return nil, src, err
	}
	return v, src[d.pos:], nil
}

// DecodeKey decodes a compound key of len(desc) parts, the i-th encoded
// with direction desc[i], and returns the values and the remaining bytes.
func DecodeKey(src []byte, desc ...bool) (values []any, rest []byte, err error) {
	values = make([]any, len(desc))
	rest = src
	for i, dsc := range desc {
		values[i], rest, err = DecodeValue(rest, dsc)
		if err != nil {
			return nil, src, fmt.Errorf("key part %d: %w", i, err)
		}
	}
	return values, rest, nil
}

// decoder reads an encoding, XOR-ing every byte with mask (0xFF for a
// descending part) as it goes.
type decoder struct {
	src  []byte
	pos  int
	mask byte
}

func corruptf(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrCorrupt}, args...)...)
}

func (d *decoder) readByte() (byte, error) {
	if d.pos >= len(d.src) {
		return 0, corruptf("truncated at byte %d", d.pos)
	}
	b := d.src[d.pos]
	d.pos++
	return b, nil
}

// peek returns the next byte, unmasked, without consuming it.
func (d *decoder) peek() (byte, error) {
	if d.pos >= len(d.src) {
		return 0, corruptf("truncated at byte %d", d.pos)
	}
	return d.src[d.pos] ^ d.mask, nil
}

// read returns the next n bytes, unmasked, in a new slice.
func (d *decoder) read(n int) ([]byte, error) {
	if n < 0 || n > len(d.src)-d.pos {
		return nil, corruptf("truncated at byte %d", d.pos)
	}
	out := make([]byte, n)
	for i := range out {
		out[i] = d.src[d.pos+i] ^ d.mask
	}
	d.pos += n
	return out, nil
}

// uint64 reads 8 bytes, unmasked, as a big-endian integer.
func (d *decoder) uint64() (uint64, error) {
	if len(d.src)-d.pos < 8 {
		return 0, corruptf("truncated at byte %d", d.pos)
	}
	u := binary.BigEndian.Uint64(d.src[d.pos:])
	d.pos += 8
	if d.mask != 0 {
		u = ^u
	}
	return u, nil
}

// objectID reads 12 bytes, unmasked.
func (d *decoder) objectID() (bson.ObjectID, error) {
	var oid bson.ObjectID
	if len(d.src)-d.pos < len(oid) {
		return oid, corruptf("truncated at byte %d", d.pos)
	}
	for i := range oid {
		oid[i] = d.src[d.pos+i] ^ d.mask
	}
	d.pos += len(oid)
	return oid, nil
}

// ordUint reads an ordered uint written by appendOrdUint, with its bytes
// XOR-ed with mask.
func (d *decoder) ordUint(mask byte) (uint64, error) {
	b, err := d.readByte()
	if err != nil {
		return 0, err
	}
	n := int(b ^ mask)
	if n > maxOrdLn || n > len(d.src)-d.pos {
		return 0, corruptf("ordered integer length %d", n)
	}
	var u uint64
	for i := range n {
		c := d.src[d.pos+i] ^ mask
		if i == 0 && c == 0 {
			return 0, corruptf("ordered integer with a leading zero byte")
		}
		u = u<<8 | uint64(c)
	}
	d.pos += n
	return u, nil
}

// escaped reads an escaped, terminated byte string.
func (d *decoder) escaped() (string, error) {
	var out []byte
	for {
		if d.pos >= len(d.src) {
			return "", corruptf("unterminated string")
		}
		b := d.src[d.pos] ^ d.mask
		d.pos++
		if b != escByte {
			out = append(out, b)
			continue
		}
		e, err := d.readByte()
		if err != nil {
			return "", err
		}
		switch e ^ d.mask {
		case escZero:
			out = append(out, 0)
		case escTerm:
			return string(out), nil
		default:
			return "", corruptf("bad escape 0x00 %#x", e^d.mask)
		}
	}
}

func (d *decoder) value(depth int) (any, error) {
	b, err := d.readByte()
	if err != nil {
		return nil, err
	}
	tag := b ^ d.mask
	switch {
	case tag >= tagNumbersFirst && tag <= tagNumbersLast:
		return d.decodeNumber(tag)
	}
	switch tag {
	case tagMinKey:
		return bson.MinKey{}, nil
	case tagMaxKey:
		return bson.MaxKey{}, nil
	case tagUndefined:
		return bson.Undefined{}, nil
	case tagNull:
		return nil, nil
	case tagFalse:
		return false, nil
	case tagTrue:
		return true, nil
	case tagString:
		return d.escaped()
	case tagJavaScript:
		s, err := d.escaped()
		return bson.JavaScript(s), err
	case tagObject:
		return d.doc(depth)
	case tagArray:
		return d.array(depth)
	case tagBinary:
		return d.binary()
	case tagObjectID:
		oid, err := d.objectID()
		if err != nil {
			return nil, err
		}
		return oid, nil
	case tagDateTime:
		u, err := d.uint64()
		if err != nil {
			return nil, err
		}
		return bson.DateTime(u ^ 1<<63), nil
	case tagTimestamp:
		u, err := d.uint64()
		if err != nil {
			return nil, err
		}
		return bson.Timestamp{T: uint32(u >> 32), I: uint32(u)}, nil
	case tagRegex:
		p, err := d.escaped()
		if err != nil {
			return nil, err
		}
		o, err := d.escaped()
		if err != nil {
			return nil, err
		}
		return bson.Regex{Pattern: p, Options: o}, nil
	case tagDBPointer:
		n, err := d.ordUint(d.mask)
		if err != nil {
			return nil, err
		}
		if n > uint64(len(d.src)) {
			return nil, corruptf("dbpointer namespace length %d", n)
		}
		ns, err := d.read(int(n))
		if err != nil {
			return nil, err
		}
		oid, err := d.objectID()
		if err != nil {
			return nil, err
		}
		return bson.DBPointer{DB: string(ns), Pointer: oid}, nil
	case tagCodeWithScope:
		code, err := d.escaped()
		if err != nil {
			return nil, err
		}
		t, err := d.readByte()
		if err != nil {
			return nil, err
		}
		if t^d.mask != tagObject {
			return nil, corruptf("code with scope without a scope document")
		}
		scope, err := d.doc(depth)
		if err != nil {
			return nil, err
		}
		return bson.CodeWithScope{Code: bson.JavaScript(code), Scope: scope}, nil
	}
	return nil, corruptf("unknown tag %#x at byte %d", tag, d.pos-1)
}

func (d *decoder) doc(depth int) (bson.D, error) {
	if depth >= MaxDepth {
		return nil, ErrTooDeep
	}
	doc := bson.D{}
	for {
		b, err := d.readByte()
		if err != nil {
			return nil, err
		}
		class := b ^ d.mask
		if class == tagEnd {
			return doc, nil
		}
		key, err := d.escaped()
		if err != nil {
			return nil, err
		}
		tag, err := d.peek()
		if err != nil {
			return nil, err
		}
		if c, ok := classOf(tag); !ok || c != class {
			return nil, corruptf("field %q: class %#x does not match tag %#x", key, class, tag)
		}
		v, err := d.value(depth + 1)
		if err != nil {
			return nil, fmt.Errorf("field %q: %w", key, err)
		}
		doc = append(doc, bson.E{Key: key, Value: v})
	}
}

func (d *decoder) array(depth int) (bson.A, error) {
	if depth >= MaxDepth {
		return nil, ErrTooDeep
	}
	arr := bson.A{}
	for {
		tag, err := d.peek()
		if err != nil {
			return nil, err
		}
		if tag == tagEnd {
			d.pos++
			return arr, nil
		}
		v, err := d.value(depth + 1)
		if err != nil {
			return nil, fmt.Errorf("array element %d: %w", len(arr), err)
		}
		arr = append(arr, v)
	}
}

func (d *decoder) binary() (bson.Binary, error) {
	n, err := d.ordUint(d.mask)
	if err != nil {
		return bson.Binary{}, err
	}
	if n > uint64(len(d.src)) {
		return bson.Binary{}, corruptf("binary length %d", n)
	}
	sub, err := d.readByte()
	if err != nil {
		return bson.Binary{}, err
	}
	data, err := d.read(int(n))
	if err != nil {
		return bson.Binary{}, err
	}
	sub ^= d.mask
	if sub == binaryOld {
		if !validOldBinary(data) {
			return bson.Binary{}, corruptf("binary subtype 2 inner length")
		}
		data = data[4:]
	}
	return bson.Binary{Subtype: sub, Data: data}, nil
}
