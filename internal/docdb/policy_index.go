package docdb

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

// policyIndex is the hidden index of one collection. It is immutable; a
// change publishes a new one.
type policyIndex struct {
	collID, ixID uint64
	group, field string
	path         []string
	// complete is set once the build has indexed every document; until
	// then the writers keep the entries of the documents they write.
	complete bool
}

// policyIndexRecord is a hidden index as the catalog stores it.
type policyIndexRecord struct {
	Index    int64  `bson:"index"`
	Group    string `bson:"group"`
	Field    string `bson:"field"`
	Complete bool   `bson:"complete"`
}

func policyIndexKey(collID uint64) []byte {
	return binary.BigEndian.AppendUint64([]byte{storage.PrefixCatalog, catPolicyIndex}, collID)
}

// putPolicyIndex writes ix's record into b.
func putPolicyIndex(b *storage.Batch, ix *policyIndex) error {
	raw, err := bson.Marshal(policyIndexRecord{Index: int64(ix.ixID), Group: ix.group, Field: ix.field, Complete: ix.complete})
	if err != nil {
		return fmt.Errorf("docdb: encode policy index: %w", err)
	}
	return b.Set(policyIndexKey(ix.collID), raw)
}

// deletePolicyIndex writes into b the deletion of ix's entries and record.
func deletePolicyIndex(b *storage.Batch, ix *policyIndex) error {
	p := catalog.IndexPrefix(ix.ixID)
	if err := b.DeleteRange(p, storage.PrefixEnd(p)); err != nil {
		return err
	}
	return b.Delete(policyIndexKey(ix.collID))
}

// policyDateKey encodes a date so that byte order is date order.
func policyDateKey(ms int64) uint64 { return uint64(ms) ^ (1 << 63) }

// policyEntryKey returns the key of a hidden index entry.
func policyEntryKey(ixID uint64, date int64, idEnc []byte) []byte {
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

// policyDueRange returns the key range of ix's entries with dates at or
// before cutoff.
func policyDueRange(ixID uint64, cutoff int64) (lo, hi []byte) {
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
func (p *policyManager) DocumentChanged(wb *change.Batch, m *catalog.CollMeta, prev, next *stored.Doc) error {
	ix := p.indexOf(m.ID)
	if ix == nil {
		return nil
	}
	var oldKey, newKey []byte
	if prev != nil {
		if d, ok := earliestDate(prev.Doc, ix.path); ok {
			oldKey = policyEntryKey(ix.ixID, d, prev.IDEnc)
		}
	}
	var date int64
	if next != nil {
		if d, ok := earliestDate(next.Doc, ix.path); ok {
			newKey, date = policyEntryKey(ix.ixID, d, next.IDEnc), d
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
	if p.expiry != nil {
		if r := p.policyRuleFor(ix.group); r != nil && r.field == ix.field {
			wb.WakeAt(addMillis(date, r.offsetMs))
		}
	}
	return nil
}

// collByID returns the live collection with that id, or nil.
func (p *policyManager) collByID(id uint64) *catalog.Collection {
	p.catMu.RLock()
	defer p.catMu.RUnlock()
	for _, c := range p.cat.Colls {
		if c.Meta.ID == id {
			return c
		}
	}
	return nil
}

// lockCollByID returns the live collection with that id with its write
// lock held, or nil.
func (p *policyManager) lockCollByID(id uint64) *catalog.Collection {
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
func (p *policyManager) groupCollections(group string) []*catalog.Collection {
	p.catMu.RLock()
	defer p.catMu.RUnlock()
	var out []*catalog.Collection
	for k, c := range p.cat.Colls {
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
func (p *policyManager) loadPolicyIndexes() error {
	lower := []byte{storage.PrefixCatalog, catPolicyIndex}
	it, err := p.store.NewIter(lower, storage.PrefixEnd(lower))
	if err != nil {
		return err
	}
	defer it.Close()
	names := map[uint64]string{}
	p.catMu.RLock()
	for k, c := range p.cat.Colls {
		names[c.Meta.ID] = k.Coll
	}
	p.catMu.RUnlock()
	b := p.store.NewBatch()
	defer b.Close()
	p.mu.Lock()
	defer p.mu.Unlock()
	for ok := it.First(); ok; ok = it.Next() {
		if len(it.Key()) != 10 {
			return fmt.Errorf("docdb: corrupt policy index key %x", it.Key())
		}
		var r policyIndexRecord
		if err := bson.Unmarshal(it.Value(), &r); err != nil {
			return fmt.Errorf("docdb: decode policy index %x: %w", it.Key(), err)
		}
		ix := &policyIndex{
			collID: binary.BigEndian.Uint64(it.Key()[2:]), ixID: uint64(r.Index),
			group: r.Group, field: r.Field, path: catalog.SplitPath(r.Field), complete: r.Complete,
		}
		pol := p.policies[r.Group]
		if name, live := names[ix.collID]; !live || name != r.Group || pol == nil || !pol.state().enabled() || pol.Field != r.Field {
			if err := deletePolicyIndex(b, ix); err != nil {
				return err
			}
			continue
		}
		p.setIndexLocked(ix.collID, ix)
	}
	if err := it.Error(); err != nil {
		return err
	}
	return b.Commit()
}

// Catalog hooks: the catalog code calls these as collections come and go.

// policyIndexForNew gives a collection being created in a group with an
// enabled policy its hidden index, empty and so complete, written into the
// batch b that creates the collection. The caller holds Engine.mu for
// writing until it has called publish after b committed, so a policy
// disabled meanwhile (which waits for Engine.mu, see disablePolicy) still
// finds the index to drop.
func (p *policyManager) policyIndexForNew(b *storage.Batch, m *catalog.CollMeta) (publish func(), err error) {
	r := p.policyRuleFor(m.Name)
	if r == nil {
		return func() {}, nil
	}
	id, err := p.cat.AllocID(b)
	if err != nil {
		return nil, err
	}
	ix := &policyIndex{collID: m.ID, ixID: id, group: m.Name, field: r.field, path: r.path, complete: true}
	if err := putPolicyIndex(b, ix); err != nil {
		return nil, err
	}
	return func() {
		p.mu.Lock()
		p.setIndexLocked(m.ID, ix)
		p.mu.Unlock()
	}, nil
}

// policyCollectionGone drops the hidden index of a dropped collection. The
// caller holds the collection's write lock.
func (p *policyManager) policyCollectionGone(m *catalog.CollMeta) {
	ix := p.indexOf(m.ID)
	if ix == nil {
		return
	}
	p.mu.Lock()
	p.setIndexLocked(m.ID, nil)
	p.mu.Unlock()
	b := p.store.NewBatch()
	defer b.Close()
	err := deletePolicyIndex(b, ix)
	if err == nil {
		err = b.Commit()
	}
	if err != nil {
		// The record is found and dropped at the next Open.
		p.logger.Error("docdb: drop hidden TTL policy index", "collection", m.DB+"."+m.Name, "err", err)
	}
}

// policyCollectionRenamed follows a rename: a collection that left its
// group loses its hidden index; one that joined a group with an enabled
// policy gets one from the worker. The caller holds the collection's write
// lock.
func (p *policyManager) policyCollectionRenamed(old, renamed *catalog.CollMeta) {
	if ix := p.indexOf(renamed.ID); ix != nil && ix.group != renamed.Name {
		p.policyCollectionGone(old)
	}
	if p.policyRuleFor(renamed.Name) != nil {
		p.kickPolicies()
	}
}

// checkPolicyIndexes verifies, on one snapshot, that every hidden index
// holds exactly one entry per document of its collection whose field
// yields a Date, at the earliest Date, and nothing else.
func (p *policyManager) checkPolicyIndexes() error {
	p.catMu.RLock()
	snap := p.store.NewSnapshot()
	var ixs []*policyIndex
	if m := p.indexes.Load(); m != nil {
		for _, ix := range *m {
			ixs = append(ixs, ix)
		}
	}
	p.catMu.RUnlock()
	defer snap.Close()
	for _, ix := range ixs {
		want := map[string]bool{}
		p := catalog.DocPrefix(ix.collID)
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
			if d, ok := earliestDate(sd.Doc, ix.path); ok {
				want[string(policyEntryKey(ix.ixID, d, sd.IDEnc))] = true
			}
		}
		it.Close()
		lo, hi := policyDueRange(ix.ixID, math.MaxInt64)
		it, err = snap.NewIter(lo, hi)
		if err != nil {
			return err
		}
		n := 0
		for ok := it.First(); ok; ok = it.Next() {
			n++
			if !want[string(it.Key())] {
				it.Close()
				return fmt.Errorf("docdb: hidden index of %s in collection %d has a stray entry %x", ix.field, ix.collID, it.Key())
			}
		}
		it.Close()
		if ix.complete && n != len(want) {
			return fmt.Errorf("docdb: hidden index of %s in collection %d has %d entries, want %d", ix.field, ix.collID, n, len(want))
		}
	}
	return nil
}
