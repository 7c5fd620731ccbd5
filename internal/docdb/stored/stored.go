package stored

import (
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/mayfly/mayfly/internal/docdb/catalog"
	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
)

// Doc is a document ready to be written: its bytes as stored, its
// decoded form (for keys, matching and validation) and its _id.
type Doc struct {
	Raw   bson.Raw
	Doc   bson.D
	ID    bson.RawValue
	IDEnc []byte
}

// EachElement calls fn with each element of a validated document, in
// order, stopping at fn's first error; it is raw.Elements without the
// slice. A malformed document is a BadValue error.
func EachElement(raw bson.Raw, fn func(el bson.RawElement) error) error {
	body, ok := docBody(raw)
	if !ok {
		return mongoerr.New(mongoerr.BadValue, "invalid BSON document: malformed length")
	}
	for len(body) > 0 {
		el, rest, ok := bsoncore.ReadElement(body)
		if !ok {
			return mongoerr.New(mongoerr.BadValue, "invalid BSON document: malformed element")
		}
		if err := fn(bson.RawElement(el)); err != nil {
			return err
		}
		body = rest
	}
	return nil
}

// IsIDKey reports whether el's key is "_id", without converting the key to
// a string.
func IsIDKey(el bson.RawElement) bool {
	return len(el) > 4 && el[1] == '_' && el[2] == 'i' && el[3] == 'd' && el[4] == 0
}

// New decodes a stored document and encodes its _id. The common
// BSON types are decoded by DecodeDoc, without the driver's reflection;
// a document holding a rare one goes through bson.Unmarshal, which gives
// the same bson.D.
func New(raw bson.Raw) (*Doc, error) {
	doc, err := Decode(raw)
	if err != nil {
		return nil, err
	}
	id, err := raw.LookupErr("_id")
	if err != nil {
		return nil, fmt.Errorf("docdb: document without _id")
	}
	idEnc, err := catalog.EncodeID(id)
	if err != nil {
		return nil, mongoerr.Newf(mongoerr.BadValue, "cannot encode _id: %v", err)
	}
	return &Doc{Raw: raw, Doc: doc, ID: id, IDEnc: idEnc}, nil
}

// Decode decodes a stored document as New does, without
// looking up and encoding its _id: a point read, which found the document
// by its encoded _id, needs only the decoded form.
func Decode(raw bson.Raw) (bson.D, error) {
	doc, ok := DecodeDoc(raw)
	if !ok {
		doc = nil
		if err := bson.Unmarshal(raw, &doc); err != nil {
			return nil, mongoerr.Newf(mongoerr.BadValue, "invalid BSON document: %v", err)
		}
	}
	return doc, nil
}
