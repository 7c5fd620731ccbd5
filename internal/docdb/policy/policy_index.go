package policy

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/catalog"
	"github.com/mayfly/mayfly/internal/docdb/change"
	"github.com/mayfly/mayfly/internal/docdb/stored"
	"github.com/mayfly/mayfly/internal/storage"
)

// The hidden index of a policy in one collection. Its entries are
//
//	PrefixIndex [index id u64] [earliest Date: Unix ms, sign bit flipped, u64] [keycodec(_id)]
//
// one per document whose field yields a Date, so entries are in date order
// and the due ones are a key range. The index id comes from the catalog's
// id counter, so it never collides with a collection or a secondary index.

// Index is the hidden index of one collection. It is immutable; a
// change publishes a new one.
type Index struct {
	CollID, ID   uint64
	Group, Field string
	Path         []string
	// complete is set once the build has indexed every document; until
	// then the writers keep the entries of the documents they write.
	Complete bool
}

// IndexRecord is a hidden index as the catalog stores it.
type IndexRecord struct {
	Index    int64  `bson:"index"`
	Group    string `bson:"group"`
	Field    string `bson:"field"`
	Complete bool   `bson:"complete"`
}

// IndexKey returns the catalog key of the hidden index record of a
// collection.
func IndexKey(collID uint64) []byte {
	return binary.BigEndian.AppendUint64([]byte{storage.PrefixCatalog, KeyIndex}, collID)
}

// PutIndex writes ix's record into b.
func PutIndex(b *storage.Batch, ix *Index) error {
	raw, err := bson.Marshal(IndexRecord{Index: int64(ix.ID), Group: ix.Group, Field: ix.Field, Complete: ix.Complete})
	if err != nil {
		return fmt.Errorf("docdb: encode policy index: %w", err)
	}
	return b.Set(IndexKey(ix.CollID), raw)
}

// deletePolicyIndex writes into b the deletion of ix's entries and record.
func deletePolicyIndex(b *storage.Batch, ix *Index) error {
	p := catalog.IndexPrefix(ix.ID)
	if err := b.DeleteRange(p, storage.PrefixEnd(p)); err != nil {
		return err
	}
	return b.Delete(IndexKey(ix.CollID))
}

// policyDateKey encodes a date so that byte order is date order.
func policyDateKey(ms int64) uint64 { return uint64(ms) ^ (1 << 63) }

// EntryKey returns the key of a hidden index entry.
func EntryKey(ixID uint64, date int64, idEnc []byte) []byte {
	k := make([]byte, 0, 17+len(idEnc))
	k = append(k, storage.PrefixIndex)
	k = binary.BigEndian.AppendUint64(k, ixID)
	k = binary.BigEndian.AppendUint64(k, policyDateKey(date))
	return append(k, idEnc...)
}

// policyEntry decodes a hidden index entry key.
func policyEntry(key []byte) (date int64, idEnc []byte, err error) {
	if len(key) < 17 {
		return 0, nil, fmt.Errorf("docdb: short policy index entry %x", key)
	}
	return int64(binary.BigEndian.Uint64(key[9:17]) ^ (1 << 63)), key[17:], nil
}

// DueRange returns the key range of ix's entries with dates at or
// before cutoff.
func DueRange(ixID uint64, cutoff int64) (lo, hi []byte) {
	lo = catalog.IndexPrefix(ixID)
	if cutoff == math.MaxInt64 {
		return lo, storage.PrefixEnd(lo)
	}
	hi = binary.BigEndian.AppendUint64(catalog.IndexPrefix(ixID), policyDateKey(cutoff+1))
	return lo, hi
}

// DocumentChanged implements change.Hook: it keeps the hidden index of a
// collection of an enabled policy's group in step with its documents, and
// asks for an expiry wake-up when a document written is due under the
// policy.
func (p *Manager) DocumentChanged(wb *change.Batch, m *catalog.CollMeta, prev, next *stored.Doc) error {
	ix := p.IndexOf(m.ID)
	if ix == nil {
		return nil
	}
	var oldKey, newKey []byte
	if prev != nil {
		if d, ok := earliestDate(prev.Doc, ix.Path); ok {
			oldKey = EntryKey(ix.ID, d, prev.IDEnc)
		}
	}
	var date int64
	if next != nil {
		if d, ok := earliestDate(next.Doc, ix.Path); ok {
			newKey, date = EntryKey(ix.ID, d, next.IDEnc), d
		}
	}
	if bytes.Equal(oldKey, newKey) {
		return nil
	}
	if oldKey != nil {
		if err := wb.Delete(oldKey); err != nil {
			return err
		}
	}
	if newKey == nil {
		return nil
	}
	if err := wb.Set(newKey, nil); err != nil {
		return err
	}
	if p.Expiry != nil {
		if r := p.RuleFor(ix.Group); r != nil && r.field == ix.Field {
			wb.WakeAt(addMillis(date, r.offsetMs))
		}
	}
	return nil
}

// collByID returns the live collection with that id, or nil.
func (p *Manager) collByID(id uint64) *catalog.Collection {
	p.CatalogMu.RLock()
	defer p.CatalogMu.RUnlock()
	for _, c := range p.Catalog.Colls {
		if c.Meta.ID == id {
			return c
		}
	}
	return nil
}

// lockCollByID returns the live collection with that id with its write
// lock held, or nil.
func (p *Manager) lockCollByID(id uint64) *catalog.Collection {
	c := p.collByID(id)
	if c == nil {
		return nil
	}
	c.WriteMu.Lock()
	if c.Dropped {
		c.WriteMu.Unlock()
		return nil
	}
	return c
}

// groupCollections returns the collections named group in every database,
// sorted by database.
func (p *Manager) groupCollections(group string) []*catalog.Collection {
	p.CatalogMu.RLock()
	defer p.CatalogMu.RUnlock()
	var out []*catalog.Collection
	for k, c := range p.Catalog.Colls {
		if k.Coll == group {
			out = append(out, c)
		}
	}
	sortCollections(out)
	return out
}

// sortCollections orders collections by database and name.
func sortCollections(cs []*catalog.Collection) {
	for i := 1; i < len(cs); i++ {
		for j := i; j > 0 && nsLess(cs[j].Meta, cs[j-1].Meta); j-- {
			cs[j], cs[j-1] = cs[j-1], cs[j]
		}
	}
}

func nsLess(a, b *catalog.CollMeta) bool {
	if a.DB != b.DB {
		return a.DB < b.DB
	}
	return a.Name < b.Name
}

// loadPolicyIndexes reads the hidden index records at Open, keeping those
// of live collections in a group whose enabled policy is on the same field
// and deleting the others with their entries.
func (p *Manager) loadPolicyIndexes() error {
	lower := []byte{storage.PrefixCatalog, KeyIndex}
	it, err := p.Store.NewIter(lower, storage.PrefixEnd(lower))
	if err != nil {
		return err
	}
	defer it.Close()
	names := map[uint64]string{}
	p.CatalogMu.RLock()
	for k, c := range p.Catalog.Colls {
		names[c.Meta.ID] = k.Coll
	}
	p.CatalogMu.RUnlock()
	b := p.Store.NewBatch()
	defer b.Close()
	p.mu.Lock()
	defer p.mu.Unlock()
	for ok := it.First(); ok; ok = it.Next() {
		if len(it.Key()) != 10 {
			return fmt.Errorf("docdb: corrupt policy index key %x", it.Key())
		}
		var r IndexRecord
		if err := bson.Unmarshal(it.Value(), &r); err != nil {
			return fmt.Errorf("docdb: decode policy index %x: %w", it.Key(), err)
		}
		ix := &Index{
			CollID: binary.BigEndian.Uint64(it.Key()[2:]), ID: uint64(r.Index),
			Group: r.Group, Field: r.Field, Path: catalog.SplitPath(r.Field), Complete: r.Complete,
		}
		pol := p.policies[r.Group]
		if name, live := names[ix.CollID]; !live || name != r.Group || pol == nil || !pol.state().enabled() || pol.Field != r.Field {
			if err := deletePolicyIndex(b, ix); err != nil {
				return err
			}
			continue
		}
		p.setIndexLocked(ix.CollID, ix)
	}
	if err := it.Error(); err != nil {
		return err
	}
	return b.Commit()
}

// Catalog hooks: the catalog code calls these as collections come and go.

// IndexForNew gives a collection being created in a group with an
// enabled policy its hidden index, empty and so complete, written into the
// batch b that creates the collection. The caller holds the catalog lock for
// writing until it has called publish after b committed, so a policy
// disabled meanwhile (which waits for the catalog lock, see disablePolicy) still
// finds the index to drop.
func (p *Manager) IndexForNew(b *storage.Batch, m *catalog.CollMeta) (publish func(), err error) {
	r := p.RuleFor(m.Name)
	if r == nil {
		return func() {}, nil
	}
	id, err := p.Catalog.AllocID(b)
	if err != nil {
		return nil, err
	}
	ix := &Index{CollID: m.ID, ID: id, Group: m.Name, Field: r.field, Path: r.path, Complete: true}
	if err := PutIndex(b, ix); err != nil {
		return nil, err
	}
	return func() {
		p.mu.Lock()
		p.setIndexLocked(m.ID, ix)
		p.mu.Unlock()
	}, nil
}

// CollectionGone drops the hidden index of a dropped collection. The
// caller holds the collection's write lock.
func (p *Manager) CollectionGone(m *catalog.CollMeta) {
	ix := p.IndexOf(m.ID)
	if ix == nil {
		return
	}
	p.mu.Lock()
	p.setIndexLocked(m.ID, nil)
	p.mu.Unlock()
	b := p.Store.NewBatch()
	defer b.Close()
	err := deletePolicyIndex(b, ix)
	if err == nil {
		err = b.Commit()
	}
	if err != nil {
		// The record is found and dropped at the next Open.
		p.Logger.Error("docdb: drop hidden TTL policy index", "collection", m.DB+"."+m.Name, "err", err)
	}
}

// CollectionRenamed follows a rename: a collection that left its
// group loses its hidden index; one that joined a group with an enabled
// policy gets one from the worker. The caller holds the collection's write
// lock.
func (p *Manager) CollectionRenamed(old, renamed *catalog.CollMeta) {
	if ix := p.IndexOf(renamed.ID); ix != nil && ix.Group != renamed.Name {
		p.CollectionGone(old)
	}
	if p.RuleFor(renamed.Name) != nil {
		p.kickPolicies()
	}
}

// Check verifies, on one snapshot, that every hidden index
// holds exactly one entry per document of its collection whose field
// yields a Date, at the earliest Date, and nothing else.
func (p *Manager) Check() error {
	p.CatalogMu.RLock()
	snap := p.Store.NewSnapshot()
	var ixs []*Index
	if m := p.indexes.Load(); m != nil {
		for _, ix := range *m {
			ixs = append(ixs, ix)
		}
	}
	p.CatalogMu.RUnlock()
	defer snap.Close()
	for _, ix := range ixs {
		want := map[string]bool{}
		p := catalog.DocPrefix(ix.CollID)
		it, err := snap.NewIter(p, storage.PrefixEnd(p))
		if err != nil {
			return err
		}
		for ok := it.First(); ok; ok = it.Next() {
			sd, err := stored.New(append([]byte(nil), it.Value()...))
			if err != nil {
				it.Close()
				return err
			}
			if d, ok := earliestDate(sd.Doc, ix.Path); ok {
				want[string(EntryKey(ix.ID, d, sd.IDEnc))] = true
			}
		}
		it.Close()
		lo, hi := DueRange(ix.ID, math.MaxInt64)
		it, err = snap.NewIter(lo, hi)
		if err != nil {
			return err
		}
		n := 0
		for ok := it.First(); ok; ok = it.Next() {
			n++
			if !want[string(it.Key())] {
				it.Close()
				return fmt.Errorf("docdb: hidden index of %s in collection %d has a stray entry %x", ix.Field, ix.CollID, it.Key())
			}
		}
		it.Close()
		if ix.Complete && n != len(want) {
			return fmt.Errorf("docdb: hidden index of %s in collection %d has %d entries, want %d", ix.Field, ix.CollID, n, len(want))
		}
	}
	return nil
}
