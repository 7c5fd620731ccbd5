package catalog

import (
	"bytes"
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
	KeyCollection byte = 'c' // 'c' db 0x00 coll -> Record
	KeyNextID     byte = 'n' // next numeric id, 8 bytes big-endian
	KeyStats      byte = 's' // 's' collection id -> collection counters
	KeyBuild      byte = 'b' // 'b' index id -> collection id: an index build in progress
)

// Record is a collection as the catalog stores it.
type Record struct {
	DB      string        `bson:"db"`
	Name    string        `bson:"name"`
	ID      int64         `bson:"id"`
	UUID    bson.Binary   `bson:"uuid"`
	Options bson.D        `bson:"options"`
	Indexes []IndexRecord `bson:"indexes"`
}

// IndexRecord is an index as the catalog stores it.
type IndexRecord struct {
	ID int64 `bson:"id"`
	// Spec is the index as listIndexes reports it: {v, key, name, options}.
	Spec bson.D `bson:"spec"`
	// Ready is false while the index is being built.
	Ready bool `bson:"ready"`
	// Multikey is set once a document has produced an array on a key path;
	// it is never cleared (MongoDB keeps it too).
	Multikey bool `bson:"multikey"`
}

// Catalog is the in-memory cache of the stored catalog. It is guarded by
// the catalog lock.
type Catalog struct {
	Colls  map[Namespace]*Collection
	nextID uint64
}

// Namespace names a collection.
type Namespace struct{ DB, Coll string }

func (k Namespace) String() string { return k.DB + "." + k.Coll }

// Collection is the runtime state of one collection. Its metadata is
// immutable and replaced as a whole: Meta is written with the catalog lock held for
// writing (and WriteMu held), and read with the catalog lock held for reading or with
// WriteMu held.
type Collection struct {
	// WriteMu serializes the collection's writes: documents, index builds and
	// catalog changes. It is taken before the catalog lock.
	WriteMu sync.Mutex
	Meta    *CollMeta
	Dropped bool // set with the catalog lock and WriteMu held
	Stats   *Counters
	// NextNatural is the sequence the next document inserted into a capped
	// collection gets (capped.go); 0 until a write loads it. OldestNatural
	// is at or before the sequence of its oldest document (0: unknown), so
	// capping seeks past what it removed before instead of reading past
	// its tombstones. Both are guarded by WriteMu.
	NextNatural, OldestNatural uint64
}

// CollKey returns the catalog key of a collection record.
func CollKey(db, coll string) []byte {
	k := make([]byte, 0, 3+len(db)+len(coll))
	k = append(k, storage.PrefixCatalog, KeyCollection)
	k = append(k, db...)
	k = append(k, 0)
	return append(k, coll...)
}

func nextIDKey() []byte { return []byte{storage.PrefixCatalog, KeyNextID} }

// StatsKey returns the catalog key of the counters of collection id.
func StatsKey(id uint64) []byte {
	return binary.BigEndian.AppendUint64([]byte{storage.PrefixCatalog, KeyStats}, id)
}

// Load reads the whole catalog into memory.
func Load(st *storage.Store) (*Catalog, error) {
	cat := &Catalog{Colls: map[Namespace]*Collection{}, nextID: 1}
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
	lower := []byte{storage.PrefixCatalog, KeyCollection}
	it, err := st.NewIter(lower, storage.PrefixEnd(lower))
	if err != nil {
		return nil, err
	}
	defer it.Close()
	for ok := it.First(); ok; ok = it.Next() {
		var rec Record
		if err := bson.Unmarshal(it.Value(), &rec); err != nil {
			return nil, fmt.Errorf("docdb: decode collection record %q: %w", it.Key(), err)
		}
		meta, err := metaFromRecord(rec)
		if err != nil {
			return nil, fmt.Errorf("docdb: collection %s.%s: %w", rec.DB, rec.Name, err)
		}
		ctr, err := loadCounters(st, meta.ID)
		if err != nil {
			return nil, err
		}
		cat.Colls[Namespace{rec.DB, rec.Name}] = &Collection{Meta: meta, Stats: ctr}
	}
	if err := it.Error(); err != nil {
		return nil, err
	}
	return cat, nil
}

// AllocID returns a fresh numeric id and writes the new counter into b.
// The caller holds the catalog lock for writing and must commit b; if it does not,
// the id is simply never used.
func (c *Catalog) AllocID(b *storage.Batch) (uint64, error) {
	id := c.nextID
	c.nextID++
	if err := b.Set(nextIDKey(), binary.BigEndian.AppendUint64(nil, c.nextID)); err != nil {
		return 0, err
	}
	return id, nil
}

// PutRecord writes the catalog record of meta into b.
func PutRecord(b *storage.Batch, meta *CollMeta) error {
	raw, err := bson.Marshal(meta.record())
	if err != nil {
		return fmt.Errorf("docdb: encode collection record: %w", err)
	}
	return b.Set(CollKey(meta.DB, meta.Name), raw)
}

// NewUUID returns a random (version 4) UUID as BSON binary subtype 4.
func NewUUID() bson.Binary {
	var u [16]byte
	_, _ = rand.Read(u[:])
	u[6] = u[6]&0x0f | 0x40
	u[8] = u[8]&0x3f | 0x80
	return bson.Binary{Subtype: bson.TypeBinaryUUID, Data: u[:]}
}

// Lookup returns the live collection db.coll, or nil. The caller holds
// the catalog lock.
func (c *Catalog) Lookup(db, coll string) *Collection {
	return c.Colls[Namespace{db, coll}]
}

// DBCollections returns the collections of db sorted by name. The caller
// holds the catalog lock.
func (c *Catalog) DBCollections(db string) []*Collection {
	var out []*Collection
	for k, cl := range c.Colls {
		if k.DB == db {
			out = append(out, cl)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Meta.Name < out[j].Meta.Name })
	return out
}

// Databases returns the names of the databases with collections, sorted.
// The caller holds the catalog lock.
func (c *Catalog) Databases() []string {
	seen := map[string]bool{}
	var out []string
	for k := range c.Colls {
		if !seen[k.DB] {
			seen[k.DB] = true
			out = append(out, k.DB)
		}
	}
	sort.Strings(out)
	return out
}

// Gone is a collection that a Replace took away: dropped, or renamed when
// RenamedTo is set (fresh holds its UUID under that other name).
type Gone struct {
	NS        Namespace
	UUID      bson.Binary
	RenamedTo *Namespace
}

// Replace makes c hold what fresh, a catalog just loaded, holds: the
// collections of fresh, where one that c already has under the same name
// and id keeps its Collection (so its WriteMu stays the one writers lock)
// with fresh's metadata and counters, and collections fresh lacks marked
// Dropped and returned as gone. The caller holds the catalog lock for
// writing and the WriteMu of every collection of c.
func (c *Catalog) Replace(fresh *Catalog) []Gone {
	colls := make(map[Namespace]*Collection, len(fresh.Colls))
	for ns, f := range fresh.Colls {
		if old, ok := c.Colls[ns]; ok && old.Meta.ID == f.Meta.ID {
			old.Meta, old.Stats = f.Meta, f.Stats
			colls[ns] = old
			continue
		}
		colls[ns] = f
	}
	var gone []Gone
	for ns, old := range c.Colls {
		if colls[ns] == old {
			continue
		}
		old.Dropped = true
		g := Gone{NS: ns, UUID: old.Meta.UUID}
		for fns, f := range fresh.Colls {
			if fns != ns && len(old.Meta.UUID.Data) > 0 && bytes.Equal(f.Meta.UUID.Data, old.Meta.UUID.Data) {
				g.RenamedTo = &fns
				break
			}
		}
		gone = append(gone, g)
	}
	c.Colls = colls
	c.nextID = fresh.nextID
	return gone
}
