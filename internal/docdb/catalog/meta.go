package catalog

import (
	"fmt"
	"math"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/collation"
	"github.com/mayfly/mayfly/internal/docdb/match"
)

// CollMeta is the immutable metadata of a collection: its record, parsed.
// A change builds a new CollMeta (WithIndexes) and swaps it in.
type CollMeta struct {
	DB, Name string
	ID       uint64
	UUID     bson.Binary
	// Options are the create options as listCollections reports them.
	Options bson.D
	// Validation is the parsed validator; nil when there is none.
	Validation *Validation
	// Indexes are in creation order; indexes[0] is _id_.
	Indexes []*IndexMeta
}

// KeyField is one component of an index key pattern.
type KeyField struct {
	Path string
	Desc bool
}

// IndexMeta is the parsed, immutable form of an index.
type IndexMeta struct {
	ID       uint64
	Name     string
	Spec     bson.D // as listIndexes reports it
	Key      bson.D // the key pattern
	Fields   []KeyField
	IsID     bool // the _id_ index, whose entries are the documents themselves
	Unique   bool
	Sparse   bool
	Hidden   bool
	Ready    bool
	Multikey bool
	// Partial is the partialFilterExpression; nil when the index is full.
	Partial *match.Filter
	// Collation is the index's collation, nil for the simple one: its
	// entries hold the collation keys of strings (IndexKeys), so only a
	// query with the same collation gets bounds from it.
	Collation *collation.Collator
	// TTL is set for TTL indexes; expireAfter is then the offset in seconds
	// (valid is false when the stored value is unusable: never delete with
	// it).
	TTL         bool
	ExpireAfter int64
	TTLValid    bool
	// ClusterColl is set on the synthetic index that stands for a clustered
	// collection's own expireAfterSeconds (clusteredTTLIndex): its entries
	// are the documents of that collection, keyed by _id.
	ClusterColl uint64
}

// Collation returns the collection's default collation (create's
// collation option), nil for the simple one.
func (m *CollMeta) Collation() *collation.Collator {
	v, ok := FieldOf(m.Options, "collation")
	if !ok {
		return nil
	}
	d, _ := v.(bson.D)
	c, err := collation.Parse(d)
	if err != nil {
		return nil
	}
	return c
}

// ClusteredTTLIndex returns the synthetic TTL index of a clustered
// collection created with expireAfterSeconds: only Date _id values expire,
// as in MongoDB (an ObjectId _id never does). It is nil for other collections.
func (m *CollMeta) ClusteredTTLIndex() *IndexMeta {
	if !m.Clustered() {
		return nil
	}
	v, ok := FieldOf(m.Options, "expireAfterSeconds")
	if !ok {
		return nil
	}
	n, ok := ToInt64(v)
	if !ok || n < 0 {
		return nil
	}
	return &IndexMeta{
		ID: 0, Name: IDIndexName, Key: bson.D{{Key: "_id", Value: int32(1)}},
		Fields: []KeyField{{Path: "_id"}}, IsID: true, Unique: true, Ready: true,
		TTL: true, ExpireAfter: n, TTLValid: true, ClusterColl: m.ID,
	}
}

// EntriesPrefix returns the key prefix of the index's entries.
func (ix *IndexMeta) EntriesPrefix() []byte {
	if ix.ClusterColl != 0 {
		return DocPrefix(ix.ClusterColl)
	}
	return IndexPrefix(ix.ID)
}

// IDIndexName is the name of the primary index.
const IDIndexName = "_id_"

// IDIndexSpec is the spec of the _id_ index.
func IDIndexSpec() bson.D {
	return bson.D{{Key: "v", Value: int32(2)}, {Key: "key", Value: bson.D{{Key: "_id", Value: int32(1)}}}, {Key: "name", Value: IDIndexName}}
}

// record returns the catalog record of m.
func (m *CollMeta) record() Record {
	rec := Record{DB: m.DB, Name: m.Name, ID: int64(m.ID), UUID: m.UUID, Options: m.Options}
	if rec.Options == nil {
		rec.Options = bson.D{}
	}
	for _, ix := range m.Indexes {
		rec.Indexes = append(rec.Indexes, IndexRecord{ID: int64(ix.ID), Spec: ix.Spec, Ready: ix.Ready, Multikey: ix.Multikey})
	}
	return rec
}

// metaFromRecord parses a stored collection record.
func metaFromRecord(rec Record) (*CollMeta, error) {
	m := &CollMeta{DB: rec.DB, Name: rec.Name, ID: uint64(rec.ID), UUID: rec.UUID, Options: rec.Options}
	v, err := ParseValidationOptions(rec.Options)
	if err != nil {
		return nil, fmt.Errorf("validator: %w", err)
	}
	m.Validation = v
	for _, ir := range rec.Indexes {
		ix, err := IndexFromSpec(uint64(ir.ID), ir.Spec)
		if err != nil {
			return nil, fmt.Errorf("index %d: %w", ir.ID, err)
		}
		ix.Ready = ir.Ready
		ix.Multikey = ir.Multikey
		m.Indexes = append(m.Indexes, ix)
	}
	if len(m.Indexes) == 0 || !m.Indexes[0].IsID {
		return nil, fmt.Errorf("no _id index")
	}
	return m, nil
}

// IndexFromSpec parses a stored (already validated) index spec.
func IndexFromSpec(id uint64, spec bson.D) (*IndexMeta, error) {
	ix := &IndexMeta{ID: id, Spec: spec}
	for _, e := range spec {
		switch e.Key {
		case "name":
			ix.Name, _ = e.Value.(string)
		case "key":
			key, ok := e.Value.(bson.D)
			if !ok {
				return nil, fmt.Errorf("key is %T", e.Value)
			}
			ix.Key = key
		case "unique":
			ix.Unique = Truthy(e.Value)
		case "sparse":
			ix.Sparse = Truthy(e.Value)
		case "hidden":
			ix.Hidden = Truthy(e.Value)
		case "partialFilterExpression":
			d, ok := e.Value.(bson.D)
			if !ok {
				return nil, fmt.Errorf("partialFilterExpression is %T", e.Value)
			}
			f, err := match.Parse(d)
			if err != nil {
				return nil, fmt.Errorf("partialFilterExpression: %w", err)
			}
			ix.Partial = f
		case "collation":
			d, _ := e.Value.(bson.D)
			c, err := collation.Parse(d)
			if err != nil {
				return nil, fmt.Errorf("collation: %w", err)
			}
			ix.Collation = c
		case "expireAfterSeconds":
			ix.TTL = true
			ix.ExpireAfter, ix.TTLValid = StoredExpireAfter(e.Value)
		}
	}
	for _, k := range ix.Key {
		ix.Fields = append(ix.Fields, KeyField{Path: k.Key, Desc: KeyDirection(k.Value) < 0})
	}
	ix.IsID = ix.Name == IDIndexName
	if ix.IsID {
		ix.Unique = true
	}
	return ix, nil
}

// StoredExpireAfter reads a stored expireAfterSeconds; ok is false when the
// value cannot be used safely (NaN, infinite, negative or out of range), in
// which case the index never deletes (MongoDB skips such indexes).
func StoredExpireAfter(v any) (int64, bool) {
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

// KeyDirection returns +1 or -1 for a key pattern value (1, -1, 1.0, ...);
// 0 for values that are not numbers.
func KeyDirection(v any) int {
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
		f, err := DecimalToFloat(x)
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

// Truthy is MongoDB's trueValue for option fields: numbers other than zero
// and true are true.
func Truthy(v any) bool {
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

// WithIndexes returns a copy of m with a new index list.
func (m *CollMeta) WithIndexes(idx []*IndexMeta) *CollMeta {
	c := *m
	c.Indexes = idx
	return &c
}

// Index returns the index with that name, or nil.
func (m *CollMeta) Index(name string) *IndexMeta {
	for _, ix := range m.Indexes {
		if ix.Name == name {
			return ix
		}
	}
	return nil
}

// Clone returns a shallow copy of ix, for building a changed version.
func (ix *IndexMeta) Clone() *IndexMeta {
	c := *ix
	return &c
}

// Clustered reports whether the collection was created with clusteredIndex.
func (m *CollMeta) Clustered() bool {
	for _, e := range m.Options {
		if e.Key == "clusteredIndex" {
			return true
		}
	}
	return false
}
