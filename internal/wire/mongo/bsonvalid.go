package mongo

import (
	"bytes"
	"encoding/binary"
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
)

// maxBSONDepth is the deepest nesting of documents and arrays accepted,
// MongoDB's BSONDepth::kDefaultMaxAllowableDepth.
const maxBSONDepth = 200

// readDocument splits the document at the start of b off the rest. It checks
// the declared length against maxSize and what is left in b, then validates
// the whole document recursively: every element's type, key, value length
// and nested document. bson.Raw.Validate only checks the outer lengths, and a
// document that passes this check can be walked by any bson function without
// surprises.
func readDocument(b []byte, maxSize int) (doc bson.Raw, rest []byte, err error) {
	if len(b) < 4 {
		return nil, nil, invalidBSON("document length is missing")
	}
	n := int(int32(binary.LittleEndian.Uint32(b)))
	if n > maxSize {
		return nil, nil, tooLarge(n, b)
	}
	if n < 5 || n > len(b) {
		return nil, nil, invalidBSON(fmt.Sprintf("document length %d does not fit the %d bytes left", n, len(b)))
	}
	if err := validateDocument(b[:n], 0); err != nil {
		return nil, nil, err
	}
	return bson.Raw(b[:n]), b[n:], nil
}

// tooLarge is MongoDB's error for a document over the size limit.
func tooLarge(n int, b []byte) error {
	msg := fmt.Sprintf("BSONObj size: %d (0x%X) is invalid. Size must be between 0 and %d(%dMB)",
		n, n, maxBSONInternalSize, maxBSONInternalSize/(1024*1024))
	// MongoDB names the first element when it can be read.
	if len(b) > 5 {
		if el, err := bson.Raw(b).IndexErr(0); err == nil {
			if key, kerr := el.KeyErr(); kerr == nil {
				msg += " First element: " + key
			}
		}
	}
	return mongoerr.New(mongoerr.BSONObjectTooLarge, msg)
}

func invalidBSON(reason string) error {
	return mongoerr.New(mongoerr.InvalidBSON, "Invalid BSON: "+reason)
}

// validateDocument validates doc, whose length field already equals
// len(doc).
func validateDocument(doc []byte, depth int) error {
	if depth > maxBSONDepth {
		return invalidBSON(fmt.Sprintf("document exceeds maximum nested object depth: %d", maxBSONDepth))
	}
	if len(doc) < 5 || doc[len(doc)-1] != 0 {
		return invalidBSON("document is not terminated by a null byte")
	}
	b := doc[4 : len(doc)-1]
	for len(b) > 0 {
		t := bson.Type(b[0])
		b = b[1:]
		k := bytes.IndexByte(b, 0)
		if k < 0 {
			return invalidBSON("field name is not terminated by a null byte")
		}
		key := b[:k]
		b = b[k+1:]
		n, err := valueLength(t, b, depth)
		if err != nil {
			if reason, ok := err.(bsonReason); ok {
				return invalidBSON(fmt.Sprintf("%s in field '%s'", reason, key))
			}
			return err
		}
		b = b[n:]
	}
	return nil
}

func int32At(b []byte) (int, bool) {
	if len(b) < 4 {
		return 0, false
	}
	return int(int32(binary.LittleEndian.Uint32(b))), true
}

// valueLength validates the value of type t at the start of b and returns
// its length.
func valueLength(t bson.Type, b []byte, depth int) (int, error) {
	fixed := func(n int) (int, error) {
		if len(b) < n {
			return 0, bsonReason(fmt.Sprintf("%s value is truncated", t))
		}
		return n, nil
	}
	switch t {
	case bson.TypeDouble, bson.TypeInt64, bson.TypeDateTime, bson.TypeTimestamp:
		return fixed(8)
	case bson.TypeInt32:
		return fixed(4)
	case bson.TypeDecimal128:
		return fixed(16)
	case bson.TypeObjectID:
		return fixed(12)
	case bson.TypeBoolean:
		return booleanLength(b)
	case bson.TypeNull, bson.TypeUndefined, bson.TypeMinKey, bson.TypeMaxKey:
		return 0, nil
	case bson.TypeString, bson.TypeJavaScript, bson.TypeSymbol:
		return stringLength(b)
	case bson.TypeEmbeddedDocument, bson.TypeArray:
		return embeddedLength(b, depth)
	case bson.TypeBinary:
		return binaryLength(b)
	case bson.TypeRegex:
		return regexLength(b)
	case bson.TypeDBPointer:
		return dbPointerLength(b)
	case bson.TypeCodeWithScope:
		return codeWithScopeLength(b, depth)
	default:
		return 0, bsonReason(fmt.Sprintf("unknown element type 0x%02x", byte(t)))
	}
}

// booleanLength validates a boolean: one byte, 0 or 1.
func booleanLength(b []byte) (int, error) {
	if len(b) < 1 {
		return 0, bsonReason("boolean value is truncated")
	}
	if b[0] > 1 {
		return 0, bsonReason(fmt.Sprintf("boolean value must be 0 or 1, not %d", b[0]))
	}
	return 1, nil
}

// embeddedLength validates an embedded document or array, recursively.
func embeddedLength(b []byte, depth int) (int, error) {
	n, ok := int32At(b)
	if !ok || n < 5 || n > len(b) {
		return 0, bsonReason("embedded document length does not fit")
	}
	if err := validateDocument(b[:n], depth+1); err != nil {
		return 0, err
	}
	return n, nil
}

// binaryLength validates binary data: length, subtype, bytes (subtype 2
// with an inner length that must agree).
func binaryLength(b []byte) (int, error) {
	n, ok := int32At(b)
	if !ok || n < 0 || len(b) < 5 || n > len(b)-5 {
		return 0, bsonReason("binary length does not fit")
	}
	if b[4] == 0x02 { // old binary: an inner length that must agree
		inner, ok := int32At(b[5:])
		if !ok || inner != n-4 {
			return 0, bsonReason("binary subtype 2 inner length does not agree")
		}
	}
	return 5 + n, nil
}

// regexLength validates a regular expression: two C strings.
func regexLength(b []byte) (int, error) {
	i := bytes.IndexByte(b, 0)
	if i < 0 {
		return 0, bsonReason("regex pattern is not terminated")
	}
	j := bytes.IndexByte(b[i+1:], 0)
	if j < 0 {
		return 0, bsonReason("regex options are not terminated")
	}
	return i + 1 + j + 1, nil
}

// dbPointerLength validates a DBPointer: a string and an ObjectId.
func dbPointerLength(b []byte) (int, error) {
	n, err := stringLength(b)
	if err != nil {
		return 0, err
	}
	if len(b) < n+12 {
		return 0, bsonReason("DBPointer value is truncated")
	}
	return n + 12, nil
}

// codeWithScopeLength validates code with scope: a total length that
// agrees with its string and scope document.
func codeWithScopeLength(b []byte, depth int) (int, error) {
	n, ok := int32At(b)
	if !ok || n < 14 || n > len(b) {
		return 0, bsonReason("code with scope length does not fit")
	}
	s, err := stringLength(b[4:n])
	if err != nil {
		return 0, err
	}
	scope := b[4+s : n]
	sn, ok := int32At(scope)
	if !ok || sn != len(scope) {
		return 0, bsonReason("code with scope length does not agree with its parts")
	}
	if err := validateDocument(scope, depth+1); err != nil {
		return 0, err
	}
	return n, nil
}

// stringLength validates a BSON string (int32 length, bytes, null) and
// returns its whole length.
func stringLength(b []byte) (int, error) {
	n, ok := int32At(b)
	if !ok || n < 1 || n > len(b)-4 {
		return 0, bsonReason("string length does not fit")
	}
	if b[4+n-1] != 0 {
		return 0, bsonReason("string is not terminated by a null byte")
	}
	return 4 + n, nil
}

// bsonReason is why a value is invalid; validateDocument adds the field name.
type bsonReason string

func (r bsonReason) Error() string { return string(r) }
