package aggregate_test

import (
	"context"
	"fmt"
	"sync"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/aggregate"
	"github.com/mayfly/mayfly/internal/docdb/collation"
	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
	"github.com/mayfly/mayfly/internal/docdb/query"
)

// memStore is an in-memory Resolver and Writer: collections of documents in
// insertion order. Scan applies the filter (a real store may use an index).
type memStore struct {
	mu      sync.Mutex
	colls   map[string][]bson.D
	scans   int
	filters []bson.D // the filter of every Scan, in order
}

func newMemStore() *memStore { return &memStore{colls: map[string][]bson.D{}} }

func key(db, coll string) string { return db + "." + coll }

func (m *memStore) put(db, coll string, docs ...bson.D) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.colls[key(db, coll)] = append(m.colls[key(db, coll)], docs...)
}

func (m *memStore) all(db, coll string) []bson.D {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]bson.D(nil), m.colls[key(db, coll)]...)
}

func (m *memStore) Scan(ctx context.Context, db, coll string, filter bson.D, c *collation.Collator) (aggregate.Iterator, error) {
	m.mu.Lock()
	m.scans++
	m.filters = append(m.filters, filter)
	docs := append([]bson.D(nil), m.colls[key(db, coll)]...)
	m.mu.Unlock()
	if len(filter) == 0 {
		return aggregate.SliceIterator(docs), nil
	}
	spec := filter
	if c != nil {
		spec = collation.Filter(c, filter)
	}
	f, err := query.ParseFilter(spec)
	if err != nil {
		return nil, fmt.Errorf("memstore: scan filter: %w", err)
	}
	var out []bson.D
	for _, d := range docs {
		md := d
		if c != nil {
			md = c.Matchable(d)
		}
		if f.Match(md) {
			out = append(out, d)
		}
	}
	return aggregate.SliceIterator(out), nil
}

func (m *memStore) Insert(ctx context.Context, db, coll string, doc bson.D) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	id, _ := query.Field(doc, "_id")
	for _, d := range m.colls[key(db, coll)] {
		if x, _ := query.Field(d, "_id"); query.Equal(x, id) {
			return mongoerr.New(mongoerr.DuplicateKey, "E11000 duplicate key error")
		}
	}
	m.colls[key(db, coll)] = append(m.colls[key(db, coll)], doc)
	return nil
}

func (m *memStore) Replace(ctx context.Context, db, coll string, id any, doc bson.D) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	docs := m.colls[key(db, coll)]
	for i, d := range docs {
		if x, _ := query.Field(d, "_id"); query.Equal(x, id) {
			docs[i] = doc
			return nil
		}
	}
	return fmt.Errorf("memstore: no document with _id %v", id)
}

func (m *memStore) ReplaceCollection(ctx context.Context, db, coll string, docs []bson.D) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.colls[key(db, coll)] = append([]bson.D(nil), docs...)
	return nil
}
