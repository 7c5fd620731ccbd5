package docdb

import (
	"fmt"
	"math"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// collMeta is the immutable metadata of a collection: its record, parsed.
// A change builds a new collMeta (withIndexes, withOptions) and swaps it in.
type collMeta struct {
	db, name string
	id       uint64
	uuid     bson.Binary
	// options are the create options as listCollections reports them.
	options bson.D
	// validation is the parsed validator; nil when there is none.
	validation *validation
	// indexes are in creation order; indexes[0] is _id_.
	indexes []*indexMeta
}

// keyField is one component of an index key pattern.
type keyField struct {
	path string
	desc bool
}

// indexMeta is the parsed, immutable form of an index.
type indexMeta struct {
	id       uint64
	name     string
	spec     bson.D // as listIndexes reports it
	key      bson.D // the key pattern
	fields   []keyField
	isID     bool // the _id_ index, whose entries are the documents themselves
	unique   bool
	sparse   bool
	hidden   bool
	ready    bool
	multikey bool
	// partial is the partialFilterExpression; nil when the index is full.
	partial *filter
	// ttl is set for TTL indexes; expireAfter is then the offset in seconds
	// (valid is false when the stored value is unusable: never delete with
	// it).
	ttl         bool
	expireAfter int64
	ttlValid    bool
	// clusterColl is set on the synthetic index that stands for a clustered
	// collection's own expireAfterSeconds (clusteredTTLIndex): its entries
	// are the documents of that collection, keyed by _id.
	clusterColl uint64
}

// clusteredTTLIndex returns the synthetic TTL index of a clustered
// collection created with expireAfterSeconds: only Date _id values expire,
// as in MongoDB (an ObjectId _id never does). It is nil for other collections.
func (m *collMeta) clusteredTTLIndex() *indexMeta {
	if !m.clustered() {
		return nil
	}
	v, ok := fieldOf(m.options, "expireAfterSeconds")
	if !ok {
		return nil
	}
	n, ok := toInt64(v)
	if !ok || n < 0 {
		return nil
	}
	return &indexMeta{
		id: 0, name: idIndexName, key: bson.D{{Key: "_id", Value: int32(1)}},
		fields: []keyField{{path: "_id"}}, isID: true, unique: true, ready: true,
		ttl: true, expireAfter: n, ttlValid: true, clusterColl: m.id,
	}
}

// entriesPrefix returns the key prefix of the index's entries.
func (ix *indexMeta) entriesPrefix() []byte {
	if ix.clusterColl != 0 {
		return docPrefix(ix.clusterColl)
	}
	return indexPrefix(ix.id)
}

// idIndexName is the name of the primary index.
const idIndexName = "_id_"

// idIndexSpec is the spec of the _id_ index.
func idIndexSpec() bson.D {
	return bson.D{{Key: "v", Value: int32(2)}, {Key: "key", Value: bson.D{{Key: "_id", Value: int32(1)}}}, {Key: "name", Value: idIndexName}}
}

// record returns the catalog record of m.
func (m *collMeta) record() collRecord {
	rec := collRecord{DB: m.db, Name: m.name, ID: int64(m.id), UUID: m.uuid, Options: m.options}
	if rec.Options == nil {
		rec.Options = bson.D{}
	}
	for _, ix := range m.indexes {
		rec.Indexes = append(rec.Indexes, indexRecord{ID: int64(ix.id), Spec: ix.spec, Ready: ix.ready, Multikey: ix.multikey})
	}
	return rec
}

// metaFromRecord parses a stored collection record.
func metaFromRecord(rec collRecord) (*collMeta, error) {
	m := &collMeta{db: rec.DB, name: rec.Name, id: uint64(rec.ID), uuid: rec.UUID, options: rec.Options}
	v, err := parseValidationOptions(rec.Options)
	if err != nil {
		return nil, fmt.Errorf("validator: %w", err)
	}
	m.validation = v
	for _, ir := range rec.Indexes {
		ix, err := indexFromSpec(uint64(ir.ID), ir.Spec)
		if err != nil {
			return nil, fmt.Errorf("index %d: %w", ir.ID, err)
		}
		ix.ready = ir.Ready
		ix.multikey = ir.Multikey
		m.indexes = append(m.indexes, ix)
	}
	if len(m.indexes) == 0 || !m.indexes[0].isID {
		return nil, fmt.Errorf("no _id index")
	}
	return m, nil
}

// indexFromSpec parses a stored (already validated) index spec.
func indexFromSpec(id uint64, spec bson.D) (*indexMeta, error) {
	ix := &indexMeta{id: id, spec: spec}
	for _, e := range spec {
		switch e.Key {
		case "name":
			ix.name, _ = e.Value.(string)
		case "key":
			key, ok := e.Value.(bson.D)
			if !ok {
				return nil, fmt.Errorf("key is %T", e.Value)
			}
			ix.key = key
		case "unique":
			ix.unique = truthy(e.Value)
		case "sparse":
			ix.sparse = truthy(e.Value)
		case "hidden":
			ix.hidden = truthy(e.Value)
		case "partialFilterExpression":
			d, ok := e.Value.(bson.D)
			if !ok {
				return nil, fmt.Errorf("partialFilterExpression is %T", e.Value)
			}
			f, err := parseFilter(d)
			if err != nil {
				return nil, fmt.Errorf("partialFilterExpression: %w", err)
			}
			ix.partial = f
		case "expireAfterSeconds":
			ix.ttl = true
			ix.expireAfter, ix.ttlValid = storedExpireAfter(e.Value)
		}
	}
	for _, k := range ix.key {
		ix.fields = append(ix.fields, keyField{path: k.Key, desc: keyDirection(k.Value) < 0})
	}
	ix.isID = ix.name == idIndexName
	if ix.isID {
		ix.unique = true
	}
	return ix, nil
}

// storedExpireAfter reads a stored expireAfterSeconds; ok is false when the
// value cannot be used safely (NaN, infinite, negative or out of range), in
// which case the index never deletes (MongoDB skips such indexes).
func storedExpireAfter(v any) (int64, bool) {
	switch x := v.(type) {
	case int32:
		return int64(x), x >= 0
	case int64:
		return x, x >= 0 && x <= math.MaxInt32
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) || x < 0 || x > math.MaxInt32 {
			return 0, false
		}
		return int64(x), true
	}
	return 0, false
}

// keyDirection returns +1 or -1 for a key pattern value (1, -1, 1.0, ...);
// 0 for values that are not numbers.
func keyDirection(v any) int {
	switch x := v.(type) {
	case int32:
		return sign(float64(x))
	case int64:
		return sign(float64(x))
	case int:
		return sign(float64(x))
	case float64:
		return sign(x)
	case bson.Decimal128:
		f, err := decimalToFloat(x)
		if err != nil {
			return 0
		}
		return sign(f)
	}
	return 0
}

func sign(f float64) int {
	switch {
	case f < 0:
		return -1
	case f > 0:
		return 1
	}
	return 0
}

// truthy is MongoDB's trueValue for option fields: numbers other than zero
// and true are true.
func truthy(v any) bool {
	switch x := v.(type) {
	case bool:
		return x
	case int32:
		return x != 0
	case int64:
		return x != 0
	case float64:
		return x != 0
	case nil, bson.Null, bson.Undefined:
		return false
	}
	return true
}

// withIndexes returns a copy of m with a new index list.
func (m *collMeta) withIndexes(idx []*indexMeta) *collMeta {
	c := *m
	c.indexes = idx
	return &c
}

// index returns the index with that name, or nil.
func (m *collMeta) index(name string) *indexMeta {
	for _, ix := range m.indexes {
		if ix.name == name {
			return ix
		}
	}
	return nil
}

// clone returns a shallow copy of ix, for building a changed version.
func (ix *indexMeta) clone() *indexMeta {
	c := *ix
	return &c
}
