package docdb

import (
	"encoding/binary"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
	"github.com/mayfly/mayfly/internal/docdb/stored"
)

// prepareInsert turns a client's document into the stored form, as mongod's
// fixDocumentForInsert does: the size and nesting limits are enforced, _id is validated,
// generated (an ObjectId) when missing and moved to the front, and
// top-level Timestamp(0, 0) values are replaced with the current time. A
// document that needs none of this is stored byte for byte as sent.
func (e *Engine) prepareInsert(raw bson.Raw) (*stored.Doc, error) {
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
	err := stored.EachElement(raw, func(el bson.RawElement) error {
		v := el.Value()
		if stored.IsIDKey(el) {
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
	return stored.New(out)
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
