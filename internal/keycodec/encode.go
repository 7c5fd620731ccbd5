package keycodec

import (
	"encoding/binary"
	"fmt"
	"math"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// AppendValue appends the encoding of v to dst and returns the extended
// slice. With desc set, the encoding is inverted byte by byte so that it
// sorts in descending order of v.
//
// v may be any Go value that go.mongodb.org/mongo-driver/v2/bson produces
// when it decodes a document into bson.D: nil or bson.Null, int32, int64,
// float64, bson.Decimal128, string, bson.Symbol, bson.D, bson.A,
// bson.Binary, bson.ObjectID, bool, bson.DateTime, bson.Timestamp,
// bson.Regex, bson.DBPointer, bson.JavaScript, bson.CodeWithScope (with a
// nil, bson.D or bson.Raw scope), bson.MinKey, bson.MaxKey, bson.Undefined.
// It may also be raw BSON (bson.RawValue, bson.Raw for a document,
// bson.RawArray), and, for convenience, int (as int64), []any (as bson.A)
// and time.Time (as a bson.DateTime of its Unix milliseconds).
//
// Unsupported Go types (bson.M among them: its field order is random) give
// an error wrapping ErrUnsupportedType; malformed raw BSON gives one
// wrapping ErrInvalidBSON. On error the returned slice is dst unchanged.
func AppendValue(dst []byte, v any, desc bool) ([]byte, error) {
	start := len(dst)
	out, err := appendValue(dst, v, 0)
	if err != nil {
		return dst, err
	}
	if desc {
		invert(out[start:])
	}
	return out, nil
}

// Part is one component of a compound index key.
type Part struct {
	// Value is the value of the part; see AppendValue for the accepted
	// types.
	Value any
	// Desc makes the part sort in descending order, as a -1 in an index
	// key pattern does.
	Desc bool
}

// AppendKey appends the concatenated encodings of parts to dst. Because
// every encoding is prefix-free, the result orders like the parts compared
// one after the other, each in its own direction.
func AppendKey(dst []byte, parts ...Part) ([]byte, error) {
	start := len(dst)
	for i, p := range parts {
		var err error
		dst, err = AppendValue(dst, p.Value, p.Desc)
		if err != nil {
			return dst[:start], fmt.Errorf("key part %d: %w", i, err)
		}
	}
	return dst, nil
}

// Encode returns the encoding of a compound key made of parts.
func Encode(parts ...Part) ([]byte, error) {
	return AppendKey(nil, parts...)
}

// appendValue appends the ascending encoding of v.
func appendValue(dst []byte, v any, depth int) ([]byte, error) {
	switch x := v.(type) {
	case nil, bson.Null:
		return append(dst, tagNull), nil
	case bson.MinKey:
		return append(dst, tagMinKey), nil
	case bson.MaxKey:
		return append(dst, tagMaxKey), nil
	case bson.Undefined:
		return append(dst, tagUndefined), nil
	case int32:
		return appendInt64(dst, int64(x)), nil
	case int64:
		return appendInt64(dst, x), nil
	case int:
		return appendInt64(dst, int64(x)), nil
	case float64:
		return appendFloat64(dst, x), nil
	case bson.Decimal128:
		return appendDecimal128(dst, x), nil
	case string:
		return appendEscaped(append(dst, tagString), x), nil
	case bson.Symbol:
		return appendEscaped(append(dst, tagString), string(x)), nil
	case bson.D:
		return appendDoc(dst, x, depth)
	case bson.A:
		return appendArray(dst, x, depth)
	case []any:
		return appendArray(dst, x, depth)
	case bson.Binary:
		return appendBinary(dst, x.Subtype, x.Data)
	case bson.ObjectID:
		return append(append(dst, tagObjectID), x[:]...), nil
	case bool:
		if x {
			return append(dst, tagTrue), nil
		}
		return append(dst, tagFalse), nil
	case bson.DateTime:
		return appendDateTime(dst, int64(x)), nil
	case time.Time:
		return appendDateTime(dst, x.UnixMilli()), nil
	case bson.Timestamp:
		return appendUint32(appendUint32(append(dst, tagTimestamp), x.T), x.I), nil
	case bson.Regex:
		dst = appendEscaped(append(dst, tagRegex), x.Pattern)
		return appendEscaped(dst, x.Options), nil
	case bson.DBPointer:
		return appendDBPointer(dst, x.DB, x.Pointer), nil
	case bson.JavaScript:
		return appendEscaped(append(dst, tagJavaScript), string(x)), nil
	case bson.CodeWithScope:
		return appendCodeWithScope(dst, x, depth)
	case bson.RawValue:
		return appendRawValue(dst, x.Type, x.Value, depth)
	case bson.Raw:
		return appendRawDoc(dst, tagObject, x, depth)
	case bson.RawArray:
		return appendRawDoc(dst, tagArray, x, depth)
	}
	return dst, fmt.Errorf("%w: %T", ErrUnsupportedType, v)
}

// appendDoc encodes a document: per element the canonical type class of
// the value, the escaped field name, and the value; then tagEnd. MongoDB
// compares documents element by element in exactly that order.
func appendDoc(dst []byte, doc bson.D, depth int) ([]byte, error) {
	if depth >= MaxDepth {
		return dst, ErrTooDeep
	}
	dst = append(dst, tagObject)
	for _, e := range doc {
		var err error
		dst, err = appendElement(dst, e.Key, e.Value, depth+1)
		if err != nil {
			return dst, fmt.Errorf("field %q: %w", e.Key, err)
		}
	}
	return append(dst, tagEnd), nil
}

// appendElement appends one document element.
func appendElement(dst []byte, key string, v any, depth int) ([]byte, error) {
	classAt := len(dst)
	dst = appendEscaped(append(dst, 0), key)
	valueAt := len(dst)
	dst, err := appendValue(dst, v, depth)
	if err != nil {
		return dst, err
	}
	dst[classAt], _ = classOf(dst[valueAt])
	return dst, nil
}

// appendArray encodes an array: the values one after the other, then
// tagEnd. MongoDB compares arrays element by element, ignoring the
// positional field names.
func appendArray(dst []byte, arr []any, depth int) ([]byte, error) {
	if depth >= MaxDepth {
		return dst, ErrTooDeep
	}
	dst = append(dst, tagArray)
	for i, v := range arr {
		var err error
		dst, err = appendValue(dst, v, depth+1)
		if err != nil {
			return dst, fmt.Errorf("array element %d: %w", i, err)
		}
	}
	return append(dst, tagEnd), nil
}

// binaryOld is the deprecated binary subtype 2, whose BSON bytes start
// with a second, inner length.
const binaryOld byte = 0x02

// appendBinary encodes a bson.Binary. Its Data is the payload the driver
// exchanges; for subtype 2 the BSON bytes are the inner length and the
// payload, as the driver marshals them, and those are what MongoDB compares.
func appendBinary(dst []byte, subtype byte, data []byte) ([]byte, error) {
	if subtype != binaryOld {
		return appendBinaryBytes(dst, subtype, data), nil
	}
	if len(data) > math.MaxInt32-4 {
		return dst, fmt.Errorf("%w: binary of %d bytes", ErrUnsupportedType, len(data))
	}
	dst = appendOrdUint(append(dst, tagBinary), uint64(len(data)+4))
	dst = binary.LittleEndian.AppendUint32(append(dst, subtype), uint32(len(data)))
	return append(dst, data...), nil
}

// appendBinaryBytes encodes BinData from its BSON bytes as MongoDB orders
// it: length, then subtype, then the bytes.
func appendBinaryBytes(dst []byte, subtype byte, b []byte) []byte {
	dst = appendOrdUint(append(dst, tagBinary), uint64(len(b)))
	dst = append(dst, subtype)
	return append(dst, b...)
}

// validOldBinary reports whether b, the bytes of a subtype 2 binary, start
// with an inner length that matches.
func validOldBinary(b []byte) bool {
	return len(b) >= 4 && uint64(binary.LittleEndian.Uint32(b)) == uint64(len(b)-4)
}

// appendDateTime encodes a Date as its milliseconds with the sign bit
// flipped, so that negative (pre-1970) dates sort first.
func appendDateTime(dst []byte, ms int64) []byte {
	return appendUint64(append(dst, tagDateTime), uint64(ms)^(1<<63))
}

// appendDBPointer encodes a DBPointer as MongoDB orders it: namespace
// length, namespace bytes, then the ObjectId.
func appendDBPointer[S ~string | ~[]byte](dst []byte, ns S, oid bson.ObjectID) []byte {
	dst = appendOrdUint(append(dst, tagDBPointer), uint64(len(ns)))
	dst = append(dst, ns...)
	return append(dst, oid[:]...)
}

// appendCodeWithScope encodes the code, then the scope as a document.
func appendCodeWithScope(dst []byte, c bson.CodeWithScope, depth int) ([]byte, error) {
	dst = appendEscaped(append(dst, tagCodeWithScope), string(c.Code))
	switch s := c.Scope.(type) {
	case nil:
		return appendDoc(dst, nil, depth)
	case bson.D:
		return appendDoc(dst, s, depth)
	case bson.Raw:
		return appendRawDoc(dst, tagObject, s, depth)
	}
	return dst, fmt.Errorf("%w: code with scope has a %T scope", ErrUnsupportedType, c.Scope)
}
