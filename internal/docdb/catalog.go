package docdb

import (
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"sort"
	"sync"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/storage"
)

// Catalog keys, all under storage.PrefixCatalog.
const (
	catCollection byte = 'c' // 'c' db 0x00 coll -> collRecord
	catNextID     byte = 'n' // next numeric id, 8 bytes big-endian
	catStats      byte = 's' // 's' collection id -> collection counters
	catBuild      byte = 'b' // 'b' index id -> collection id: an index build in progress (index_build.go)
)

// collRecord is a collection as the catalog stores it.
type collRecord struct {
	DB      string        `bson:"db"`
	Name    string        `bson:"name"`
	ID      int64         `bson:"id"`
	UUID    bson.Binary   `bson:"uuid"`
	Options bson.D        `bson:"options"`
	Indexes []indexRecord `bson:"indexes"`
}

// indexRecord is an index as the catalog stores it.
type indexRecord struct {
	ID int64 `bson:"id"`
	// Spec is the index as listIndexes reports it: {v, key, name, options}.
	Spec bson.D `bson:"spec"`
	// Ready is false while the index is being built.
	Ready bool `bson:"ready"`
	// Multikey is set once a document has produced an array on a key path;
	// it is never cleared (MongoDB keeps it too).
	Multikey bool `bson:"multikey"`
}

// catalog is the in-memory cache of the stored catalog. It is guarded by
// Engine.mu.
type catalog struct {
	colls  map[nsKey]*collection
	nextID uint64
}

// nsKey names a collection.
type nsKey struct{ db, coll string }

func (k nsKey) String() string { return k.db + "." + k.coll }

// collection is the runtime state of one collection. Its metadata is
// immutable and replaced as a whole: meta is written with Engine.mu held for
// writing (and wmu held), and read with Engine.mu held for reading or with
// wmu held.
type collection struct {
	// wmu serializes the collection's writes: documents, index builds and
	// catalog changes. It is taken before Engine.mu.
	wmu     sync.Mutex
	meta    *collMeta
	dropped bool // set with Engine.mu and wmu held
	stats   *counters
}

// collKey returns the catalog key of a collection record.
func collKey(db, coll string) []byte {
	k := make([]byte, 0, 3+len(db)+len(coll))
	k = append(k, storage.PrefixCatalog, catCollection)
	k = append(k, db...)
	k = append(k, 0)
	return append(k, coll...)
}

func nextIDKey() []byte { return []byte{storage.PrefixCatalog, catNextID} }

func statsKey(id uint64) []byte {
	return binary.BigEndian.AppendUint64([]byte{storage.PrefixCatalog, catStats}, id)
}

// loadCatalog reads the whole catalog into memory.
func loadCatalog(st *storage.Store) (*catalog, error) {
	cat := &catalog{colls: map[nsKey]*collection{}, nextID: 1}
	v, err := st.Get(nextIDKey())
	switch {
	case err == nil:
		if len(v) != 8 {
			return nil, fmt.Errorf("docdb: corrupt next id record")
		}
		cat.nextID = binary.BigEndian.Uint64(v)
	case errors.Is(err, storage.ErrNotFound):
	default:
		return nil, err
	}
	lower := []byte{storage.PrefixCatalog, catCollection}
	it, err := st.NewIter(lower, storage.PrefixEnd(lower))
	if err != nil {
		return nil, err
	}
	defer it.Close()
	for ok := it.First(); ok; ok = it.Next() {
		var rec collRecord
		if err := bson.Unmarshal(it.Value(), &rec); err != nil {
			return nil, fmt.Errorf("docdb: decode collection record %q: %w", it.Key(), err)
		}
		meta, err := metaFromRecord(rec)
		if err != nil {
			return nil, fmt.Errorf("docdb: collection %s.%s: %w", rec.DB, rec.Name, err)
		}
		ctr, err := loadCounters(st, meta.id)
		if err != nil {
			return nil, err
		}
		cat.colls[nsKey{rec.DB, rec.Name}] = &collection{meta: meta, stats: ctr}
	}
	if err := it.Error(); err != nil {
		return nil, err
	}
	return cat, nil
}

// allocID returns a fresh numeric id and writes the new counter into b.
// The caller holds Engine.mu for writing and must commit b; if it does not,
// the id is simply never used.
func (c *catalog) allocID(b *storage.Batch) (uint64, error) {
	id := c.nextID
	c.nextID++
	if err := b.Set(nextIDKey(), binary.BigEndian.AppendUint64(nil, c.nextID)); err != nil {
		return 0, err
	}
	return id, nil
}

// putRecord writes the catalog record of meta into b.
func putRecord(b *storage.Batch, meta *collMeta) error {
	raw, err := bson.Marshal(meta.record())
	if err != nil {
		return fmt.Errorf("docdb: encode collection record: %w", err)
	}
	return b.Set(collKey(meta.db, meta.name), raw)
}

// newUUID returns a random (version 4) UUID as BSON binary subtype 4.
func newUUID() bson.Binary {
	var u [16]byte
	_, _ = rand.Read(u[:])
	u[6] = u[6]&0x0f | 0x40
	u[8] = u[8]&0x3f | 0x80
	return bson.Binary{Subtype: bson.TypeBinaryUUID, Data: u[:]}
}

// lookup returns the live collection db.coll, or nil. The caller holds
// Engine.mu.
func (c *catalog) lookup(db, coll string) *collection {
	return c.colls[nsKey{db, coll}]
}

// dbCollections returns the collections of db sorted by name. The caller
// holds Engine.mu.
func (c *catalog) dbCollections(db string) []*collection {
	var out []*collection
	for k, cl := range c.colls {
		if k.db == db {
			out = append(out, cl)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].meta.name < out[j].meta.name })
	return out
}

// databases returns the names of the databases with collections, sorted.
// The caller holds Engine.mu.
func (c *catalog) databases() []string {
	seen := map[string]bool{}
	var out []string
	for k := range c.colls {
		if !seen[k.db] {
			seen[k.db] = true
			out = append(out, k.db)
		}
	}
	sort.Strings(out)
	return out
}
