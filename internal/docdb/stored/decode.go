package stored

import (
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/mayfly/mayfly/internal/docdb/catalog"
)

// The TTL reaper decodes every document it deletes (to find its index
// entries). bson.Unmarshal into a bson.D goes through the driver's
// reflection-based codecs, too slow for that; DecodeDoc builds the same
// bson.D directly for the common BSON types and leaves documents holding a
// rare one (old binary,
// undefined, DBPointer, JavaScript, symbol, code with scope, min and max
// keys) to bson.Unmarshal. decode_test.go checks that both give
// deeply equal results.

// NewFast is New with DecodeDoc.
func NewFast(raw bson.Raw) (*Doc, error) {
	doc, ok := DecodeDoc(raw)
	if !ok {
		return New(raw)
	}
	id, err := raw.LookupErr("_id")
	if err != nil {
		return nil, fmt.Errorf("docdb: document without _id")
	}
	idEnc, err := catalog.EncodeID(id)
	if err != nil {
		return nil, fmt.Errorf("docdb: cannot encode _id: %w", err)
	}
	return &Doc{Raw: raw, Doc: doc, ID: id, IDEnc: idEnc}, nil
}

// DecodeDoc decodes a BSON document as bson.Unmarshal into a bson.D does;
// ok is false for malformed input or a type it leaves to bson.Unmarshal.
func DecodeDoc(src []byte) (bson.D, bool) {
	body, ok := docBody(src)
	if !ok {
		return nil, false
	}
	out := make(bson.D, 0, 8)
	for len(body) > 0 {
		el, rest, ok := bsoncore.ReadElement(body)
		if !ok {
			return nil, false
		}
		v, ok := decodeValue(el.Value())
		if !ok {
			return nil, false
		}
		out = append(out, bson.E{Key: el.Key(), Value: v})
		body = rest
	}
	return out, true
}

// docBody returns the elements of a document or array: its bytes between
// the length and the terminating zero.
func docBody(src []byte) ([]byte, bool) {
	n, _, ok := bsoncore.ReadLength(src)
	if !ok || n < 5 || int(n) > len(src) || src[n-1] != 0 {
		return nil, false
	}
	return src[4 : n-1], true
}

func decodeArray(src []byte) (bson.A, bool) {
	body, ok := docBody(src)
	if !ok {
		return nil, false
	}
	out := bson.A{}
	for len(body) > 0 {
		el, rest, ok := bsoncore.ReadElement(body)
		if !ok {
			return nil, false
		}
		v, ok := decodeValue(el.Value())
		if !ok {
			return nil, false
		}
		out = append(out, v)
		body = rest
	}
	return out, true
}

func decodeValue(v bsoncore.Value) (any, bool) {
	switch v.Type {
	case bsoncore.TypeDouble:
		return v.DoubleOK()
	case bsoncore.TypeString:
		return v.StringValueOK()
	case bsoncore.TypeEmbeddedDocument:
		return DecodeDoc(v.Data)
	case bsoncore.TypeArray:
		return decodeArray(v.Data)
	case bsoncore.TypeBinary:
		sub, data, ok := v.BinaryOK()
		if !ok || sub == bson.TypeBinaryBinaryOld {
			return nil, false
		}
		return bson.Binary{Subtype: sub, Data: append([]byte{}, data...)}, true
	case bsoncore.TypeObjectID:
		oid, ok := v.ObjectIDOK()
		return bson.ObjectID(oid), ok
	case bsoncore.TypeBoolean:
		return v.BooleanOK()
	case bsoncore.TypeDateTime:
		ms, ok := v.DateTimeOK()
		return bson.DateTime(ms), ok
	case bsoncore.TypeNull:
		return nil, true
	case bsoncore.TypeRegex:
		p, o, ok := v.RegexOK()
		return bson.Regex{Pattern: p, Options: o}, ok
	case bsoncore.TypeInt32:
		return v.Int32OK()
	case bsoncore.TypeTimestamp:
		t, i, ok := v.TimestampOK()
		return bson.Timestamp{T: t, I: i}, ok
	case bsoncore.TypeInt64:
		return v.Int64OK()
	case bsoncore.TypeDecimal128:
		h, l, ok := v.Decimal128OK()
		return bson.NewDecimal128(h, l), ok
	}
	return nil, false
}
