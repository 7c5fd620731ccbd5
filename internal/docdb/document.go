package docdb

import (
	"encoding/binary"
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

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

// prepareInsert turns a client's document into the stored form, as mongod's
// fixDocumentForInsert does: the size and nesting limits are enforced, _id is validated,
// generated (an ObjectId) when missing and moved to the front, and
// top-level Timestamp(0, 0) values are replaced with the current time. A
// document that needs none of this is stored byte for byte as sent.
func (e *Engine) prepareInsert(raw bson.Raw) (*storedDoc, error) {
	if err := raw.Validate(); err != nil {
		return nil, mongoerr.Newf(mongoerr.BadValue, "invalid BSON document: %v", err)
	}
	if len(raw) > e.opts.MaxDocumentSize {
		return nil, mongoerr.Newf(mongoerr.BSONObjectTooLarge,
			"object to insert too large. size in bytes: %d, max size: %d", len(raw), e.opts.MaxDocumentSize)
	}
	if err := checkInsertDepth(raw); err != nil {
		return nil, err
	}
	idAt := -1
	fixTS := false
	i := 0
	err := eachRawElement(raw, func(el bson.RawElement) error {
		v := el.Value()
		if isIDKey(el) {
			if idAt >= 0 {
				return mongoerr.New(mongoerr.BadValue, "can't have multiple _id fields in one document")
			}
			if err := validID(v); err != nil {
				return err
			}
			idAt = i
		}
		if v.Type == bson.TypeTimestamp {
			if t, inc := v.Timestamp(); t == 0 && inc == 0 {
				fixTS = true
			}
		}
		i++
		return nil
	})
	if err != nil {
		return nil, err
	}
	out := raw
	if idAt != 0 || fixTS {
		elems, err := raw.Elements()
		if err != nil {
			return nil, mongoerr.Newf(mongoerr.BadValue, "invalid BSON document: %v", err)
		}
		buf := make([]byte, 4, len(raw)+24)
		if idAt >= 0 {
			buf = append(buf, elems[idAt]...)
		} else {
			oid := bson.NewObjectID()
			buf = append(buf, byte(bson.TypeObjectID))
			buf = append(buf, "_id\x00"...)
			buf = append(buf, oid[:]...)
		}
		for i, el := range elems {
			if i == idAt {
				continue
			}
			v := el.Value()
			if v.Type == bson.TypeTimestamp {
				if t, inc := v.Timestamp(); t == 0 && inc == 0 {
					ts := e.nextTimestamp()
					buf = append(buf, byte(bson.TypeTimestamp))
					buf = append(buf, el.Key()...)
					buf = append(buf, 0)
					buf = binary.LittleEndian.AppendUint32(buf, ts.I)
					buf = binary.LittleEndian.AppendUint32(buf, ts.T)
					continue
				}
			}
			buf = append(buf, el...)
		}
		buf = append(buf, 0)
		binary.LittleEndian.PutUint32(buf, uint32(len(buf)))
		out = buf
		if len(out) > e.opts.MaxDocumentSize {
			return nil, mongoerr.Newf(mongoerr.BSONObjectTooLarge,
				"object to insert too large. size in bytes: %d, max size: %d", len(out), e.opts.MaxDocumentSize)
		}
	}
	return newStoredDoc(out)
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
	idEnc, err := encodeID(id)
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

// validID applies mongod's validIdField rules.
func validID(v bson.RawValue) error {
	switch v.Type {
	case bson.TypeRegex, bson.TypeArray, bson.TypeUndefined:
		return mongoerr.Newf(mongoerr.InvalidIdField, "The '_id' value cannot be of type %s", bsonTypeName(v.Type))
	case bson.TypeEmbeddedDocument:
		elems, err := v.Document().Elements()
		if err != nil {
			return mongoerr.Newf(mongoerr.BadValue, "invalid BSON document: %v", err)
		}
		for _, el := range elems {
			if k := el.Key(); len(k) > 0 && k[0] == '$' {
				return mongoerr.Newf(mongoerr.DollarPrefixedFieldName,
					"_id fields may not contain '$'-prefixed fields: %s is not valid for storage.", k)
			}
		}
	}
	return nil
}

// bsonTypeName returns mongod's name of a BSON type.
func bsonTypeName(t bson.Type) string {
	switch t {
	case bson.TypeRegex:
		return "regex"
	case bson.TypeArray:
		return "array"
	case bson.TypeUndefined:
		return "undefined"
	}
	return t.String()
}

// nextTimestamp returns a fresh timestamp for Timestamp(0, 0) values: the
// current second and an increment that grows within it.
func (e *Engine) nextTimestamp() bson.Timestamp {
	sec := uint32(e.opts.Now().Unix())
	for {
		old := e.lastTS.Load()
		t, i := uint32(old>>32), uint32(old)
		if t >= sec {
			sec, i = t, i+1
		} else {
			i = 1
		}
		next := uint64(sec)<<32 | uint64(i)
		if e.lastTS.CompareAndSwap(old, next) {
			return bson.Timestamp{T: sec, I: i}
		}
	}
}

// marshalDoc encodes a document built by the engine (an update result).
func marshalDoc(d bson.D) (bson.Raw, error) {
	raw, err := bson.Marshal(d)
	if err != nil {
		return nil, mongoerr.Newf(mongoerr.BadValue, "cannot encode document: %v", err)
	}
	return raw, nil
}
