package keycodec

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// Raw BSON is encoded straight from its bytes, without building Go values,
// and to exactly the bytes its decoded Go value would give.

// appendRawValue appends the encoding of the raw value v of BSON type t.
// v must hold exactly one value.
func appendRawValue(dst []byte, t bson.Type, v []byte, depth int) ([]byte, error) {
	n, err := rawValueLen(t, v)
	if err != nil {
		return dst, err
	}
	if n != len(v) {
		return dst, fmt.Errorf("%w: %d trailing bytes after %s value", ErrInvalidBSON, len(v)-n, t)
	}
	switch t {
	case bson.TypeDouble:
		return appendFloat64(dst, math.Float64frombits(binary.LittleEndian.Uint64(v))), nil
	case bson.TypeString:
		return appendEscapedBytes(append(dst, tagString), v[4:len(v)-1]), nil
	case bson.TypeSymbol:
		return appendEscapedBytes(append(dst, tagString), v[4:len(v)-1]), nil
	case bson.TypeJavaScript:
		return appendEscapedBytes(append(dst, tagJavaScript), v[4:len(v)-1]), nil
	case bson.TypeEmbeddedDocument:
		return appendRawDoc(dst, tagObject, v, depth)
	case bson.TypeArray:
		return appendRawDoc(dst, tagArray, v, depth)
	case bson.TypeBinary:
		if v[4] == binaryOld && !validOldBinary(v[5:]) {
			return dst, fmt.Errorf("%w: binary subtype 2 inner length", ErrInvalidBSON)
		}
		return appendBinaryBytes(dst, v[4], v[5:]), nil
	case bson.TypeUndefined:
		return append(dst, tagUndefined), nil
	case bson.TypeObjectID:
		return append(append(dst, tagObjectID), v...), nil
	case bson.TypeBoolean:
		switch v[0] {
		case 0:
			return append(dst, tagFalse), nil
		case 1:
			return append(dst, tagTrue), nil
		}
		return dst, fmt.Errorf("%w: boolean byte %#x", ErrInvalidBSON, v[0])
	case bson.TypeDateTime:
		return appendDateTime(dst, int64(binary.LittleEndian.Uint64(v))), nil
	case bson.TypeNull:
		return append(dst, tagNull), nil
	case bson.TypeRegex:
		i := bytes.IndexByte(v, 0)
		dst = appendEscapedBytes(append(dst, tagRegex), v[:i])
		return appendEscapedBytes(dst, v[i+1:len(v)-1]), nil
	case bson.TypeDBPointer:
		ns := v[4 : len(v)-13]
		return appendDBPointer(dst, ns, bson.ObjectID(v[len(v)-12:])), nil
	case bson.TypeCodeWithScope:
		sl := int(binary.LittleEndian.Uint32(v[4:]))
		dst = appendEscapedBytes(append(dst, tagCodeWithScope), v[8:8+sl-1])
		return appendRawDoc(dst, tagObject, v[8+sl:], depth)
	case bson.TypeInt32:
		return appendInt64(dst, int64(int32(binary.LittleEndian.Uint32(v)))), nil
	case bson.TypeTimestamp:
		// Little-endian: increment first, then seconds.
		i := binary.LittleEndian.Uint32(v)
		ts := binary.LittleEndian.Uint32(v[4:])
		return appendUint32(appendUint32(append(dst, tagTimestamp), ts), i), nil
	case bson.TypeInt64:
		return appendInt64(dst, int64(binary.LittleEndian.Uint64(v))), nil
	case bson.TypeDecimal128:
		lo := binary.LittleEndian.Uint64(v)
		hi := binary.LittleEndian.Uint64(v[8:])
		return appendDecimal128(dst, bson.NewDecimal128(hi, lo)), nil
	case bson.TypeMinKey:
		return append(dst, tagMinKey), nil
	case bson.TypeMaxKey:
		return append(dst, tagMaxKey), nil
	}
	return dst, fmt.Errorf("%w: bson type %#x", ErrUnsupportedType, byte(t))
}

// appendRawDoc appends a raw document (tag tagObject) or array (tag
// tagArray). Array keys are not checked: MongoDB ignores them when it
// compares arrays.
func appendRawDoc(dst []byte, tag byte, doc []byte, depth int) ([]byte, error) {
	if depth >= MaxDepth {
		return dst, ErrTooDeep
	}
	if len(doc) < 5 || int(binary.LittleEndian.Uint32(doc)) != len(doc) || doc[len(doc)-1] != 0 {
		return dst, fmt.Errorf("%w: document length", ErrInvalidBSON)
	}
	start := len(dst)
	dst = append(dst, tag)
	rest := doc[4 : len(doc)-1]
	for len(rest) > 0 {
		t := bson.Type(rest[0])
		k := bytes.IndexByte(rest[1:], 0)
		if k < 0 {
			return dst[:start], fmt.Errorf("%w: unterminated field name", ErrInvalidBSON)
		}
		key := rest[1 : 1+k]
		rest = rest[2+k:]
		n, err := rawValueLen(t, rest)
		if err != nil {
			return dst[:start], fmt.Errorf("field %q: %w", key, err)
		}
		classAt := len(dst)
		if tag == tagObject {
			dst = appendEscapedBytes(append(dst, 0), key)
		}
		valueAt := len(dst)
		dst, err = appendRawValue(dst, t, rest[:n], depth+1)
		if err != nil {
			return dst[:start], fmt.Errorf("field %q: %w", key, err)
		}
		if tag == tagObject {
			dst[classAt], _ = classOf(dst[valueAt])
		}
		rest = rest[n:]
	}
	return append(dst, tagEnd), nil
}

// rawValueLen returns the length of the value of type t at the start of b,
// checking that it is well formed enough to be encoded.
func rawValueLen(t bson.Type, b []byte) (int, error) {
	fixed := func(n int) (int, error) {
		if len(b) < n {
			return 0, fmt.Errorf("%w: short %s value", ErrInvalidBSON, t)
		}
		return n, nil
	}
	switch t {
	case bson.TypeDouble, bson.TypeDateTime, bson.TypeTimestamp, bson.TypeInt64:
		return fixed(8)
	case bson.TypeInt32:
		return fixed(4)
	case bson.TypeDecimal128:
		return fixed(16)
	case bson.TypeObjectID:
		return fixed(12)
	case bson.TypeBoolean:
		return fixed(1)
	case bson.TypeNull, bson.TypeUndefined, bson.TypeMinKey, bson.TypeMaxKey:
		return 0, nil
	case bson.TypeString, bson.TypeSymbol, bson.TypeJavaScript:
		return rawStringLen(b)
	case bson.TypeEmbeddedDocument, bson.TypeArray:
		if len(b) < 4 {
			return 0, fmt.Errorf("%w: short %s value", ErrInvalidBSON, t)
		}
		n := int64(binary.LittleEndian.Uint32(b))
		if n < 5 || n > int64(len(b)) {
			return 0, fmt.Errorf("%w: %s length %d", ErrInvalidBSON, t, n)
		}
		return int(n), nil
	case bson.TypeBinary:
		if len(b) < 5 {
			return 0, fmt.Errorf("%w: short binary value", ErrInvalidBSON)
		}
		n := int64(int32(binary.LittleEndian.Uint32(b)))
		if n < 0 || n > int64(len(b)-5) {
			return 0, fmt.Errorf("%w: binary length %d", ErrInvalidBSON, n)
		}
		return 5 + int(n), nil
	case bson.TypeRegex:
		i := bytes.IndexByte(b, 0)
		if i < 0 {
			return 0, fmt.Errorf("%w: unterminated regex pattern", ErrInvalidBSON)
		}
		j := bytes.IndexByte(b[i+1:], 0)
		if j < 0 {
			return 0, fmt.Errorf("%w: unterminated regex options", ErrInvalidBSON)
		}
		return i + 1 + j + 1, nil
	case bson.TypeDBPointer:
		n, err := rawStringLen(b)
		if err != nil {
			return 0, err
		}
		if len(b) < n+12 {
			return 0, fmt.Errorf("%w: short dbpointer value", ErrInvalidBSON)
		}
		return n + 12, nil
	case bson.TypeCodeWithScope:
		if len(b) < 4 {
			return 0, fmt.Errorf("%w: short code with scope value", ErrInvalidBSON)
		}
		total := int64(binary.LittleEndian.Uint32(b))
		if total < 14 || total > int64(len(b)) {
			return 0, fmt.Errorf("%w: code with scope length %d", ErrInvalidBSON, total)
		}
		sn, err := rawStringLen(b[4:total])
		if err != nil {
			return 0, err
		}
		dn, err := rawValueLen(bson.TypeEmbeddedDocument, b[4+sn:total])
		if err != nil {
			return 0, err
		}
		if int64(4+sn+dn) != total {
			return 0, fmt.Errorf("%w: code with scope length %d", ErrInvalidBSON, total)
		}
		return int(total), nil
	}
	return 0, fmt.Errorf("%w: bson type %#x", ErrUnsupportedType, byte(t))
}

// rawStringLen returns the length of the BSON string (int32 length, bytes,
// NUL) at the start of b.
func rawStringLen(b []byte) (int, error) {
	if len(b) < 5 {
		return 0, fmt.Errorf("%w: short string", ErrInvalidBSON)
	}
	n := int64(int32(binary.LittleEndian.Uint32(b)))
	if n < 1 || n > int64(len(b)-4) || b[4+n-1] != 0 {
		return 0, fmt.Errorf("%w: string length %d", ErrInvalidBSON, n)
	}
	return 4 + int(n), nil
}
