package docdb

import (
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/mayfly/mayfly/internal/docdb/catalog"
	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
)

// storedDoc is a document ready to be written: its bytes as stored, its
// decoded form (for keys, matching and validation) and its _id.
type storedDoc struct {
	raw   bson.Raw
	doc   bson.D
	id    bson.RawValue
	idEnc []byte
}

// eachRawElement calls fn with each element of a validated document, in
// order, stopping at fn's first error; it is raw.Elements without the
// slice. A malformed document is a BadValue error.
func eachRawElement(raw bson.Raw, fn func(el bson.RawElement) error) error {
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

// isIDKey reports whether el's key is "_id", without converting the key to
// a string.
func isIDKey(el bson.RawElement) bool {
	return len(el) > 4 && el[1] == '_' && el[2] == 'i' && el[3] == 'd' && el[4] == 0
}

// newStoredDoc decodes a stored document and encodes its _id. The common
// BSON types are decoded by decodeDoc, without the driver's reflection;
// a document holding a rare one goes through bson.Unmarshal, which gives
// the same bson.D.
func newStoredDoc(raw bson.Raw) (*storedDoc, error) {
	doc, err := decodeStored(raw)
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
	return &storedDoc{raw: raw, doc: doc, id: id, idEnc: idEnc}, nil
}

// decodeStored decodes a stored document as newStoredDoc does, without
// looking up and encoding its _id: a point read, which found the document
// by its encoded _id, needs only the decoded form.
func decodeStored(raw bson.Raw) (bson.D, error) {
	doc, ok := decodeDoc(raw)
	if !ok {
		doc = nil
		if err := bson.Unmarshal(raw, &doc); err != nil {
			return nil, mongoerr.Newf(mongoerr.BadValue, "invalid BSON document: %v", err)
		}
	}
	return doc, nil
}
