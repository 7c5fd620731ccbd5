package mongo

import (
	"encoding/binary"
	"math"
	"strconv"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// Replies are bson.D documents built by the handlers. bson.Marshal encodes
// them through the driver's reflection-based codecs, which cost a find by
// _id more than the wire decoding and dispatch together; appendDoc encodes
// the value types replies are made of directly, byte for byte as
// bson.Marshal does, and reports any other type so that the caller falls
// back to bson.Marshal.

// appendDoc appends d to dst as bson.Marshal encodes it. ok is false when d
// holds a value of a type appendDoc does not encode, or anything
// bson.Marshal would refuse (a key with a NUL byte, a malformed bson.Raw);
// dst is then to be discarded.
func appendDoc(dst []byte, d bson.D) (out []byte, ok bool) {
	if d == nil {
		return dst, false
	}
	start := len(dst)
	dst = append(dst, 0, 0, 0, 0)
	for _, e := range d {
		if dst, ok = appendValue(dst, e.Key, e.Value); !ok {
			return dst, false
		}
	}
	dst = append(dst, 0)
	binary.LittleEndian.PutUint32(dst[start:], uint32(len(dst)-start))
	return dst, true
}

// appendArray appends a as a BSON array, as bson.Marshal encodes a bson.A.
func appendArray(dst []byte, a bson.A) (out []byte, ok bool) {
	start := len(dst)
	dst = append(dst, 0, 0, 0, 0)
	var key [20]byte
	for i, v := range a {
		if dst, ok = appendValue(dst, string(strconv.AppendInt(key[:0], int64(i), 10)), v); !ok {
			return dst, false
		}
	}
	dst = append(dst, 0)
	binary.LittleEndian.PutUint32(dst[start:], uint32(len(dst)-start))
	return dst, true
}

// appendValue appends the element key: v.
func appendValue(dst []byte, key string, v any) ([]byte, bool) {
	if strings.IndexByte(key, 0) >= 0 {
		return dst, false
	}
	header := func(t bson.Type) []byte {
		dst = append(dst, byte(t))
		dst = append(dst, key...)
		return append(dst, 0)
	}
	switch v := v.(type) {
	case nil:
		return header(bson.TypeNull), true
	case bool:
		b := byte(0)
		if v {
			b = 1
		}
		return append(header(bson.TypeBoolean), b), true
	case int32:
		return binary.LittleEndian.AppendUint32(header(bson.TypeInt32), uint32(v)), true
	case int64:
		return binary.LittleEndian.AppendUint64(header(bson.TypeInt64), uint64(v)), true
	case int:
		if v >= math.MinInt32 && v <= math.MaxInt32 {
			return binary.LittleEndian.AppendUint32(header(bson.TypeInt32), uint32(int32(v))), true
		}
		return binary.LittleEndian.AppendUint64(header(bson.TypeInt64), uint64(v)), true
	case float64:
		return binary.LittleEndian.AppendUint64(header(bson.TypeDouble), math.Float64bits(v)), true
	case string:
		dst = header(bson.TypeString)
		dst = binary.LittleEndian.AppendUint32(dst, uint32(len(v)+1))
		dst = append(dst, v...)
		return append(dst, 0), true
	case bson.DateTime:
		return binary.LittleEndian.AppendUint64(header(bson.TypeDateTime), uint64(v)), true
	case bson.ObjectID:
		return append(header(bson.TypeObjectID), v[:]...), true
	case bson.Timestamp:
		dst = header(bson.TypeTimestamp)
		dst = binary.LittleEndian.AppendUint32(dst, v.I)
		return binary.LittleEndian.AppendUint32(dst, v.T), true
	case bson.Raw:
		// bson.Marshal copies a bson.Raw element by element, refusing a
		// malformed one.
		if bsoncore.Document(v).Validate() != nil {
			return dst, false
		}
		return append(header(bson.TypeEmbeddedDocument), v...), true
	case bson.D:
		if v == nil {
			return dst, false // bson.Marshal writes a nil bson.D as null
		}
		return appendDoc(header(bson.TypeEmbeddedDocument), v)
	case bson.A:
		if v == nil {
			return dst, false
		}
		return appendArray(header(bson.TypeArray), v)
	}
	return dst, false
}
