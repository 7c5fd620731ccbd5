package docdb

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"maps"

	"github.com/mayfly/mayfly/internal/docdb/catalog"
	"github.com/mayfly/mayfly/internal/docdb/stored"
	"github.com/mayfly/mayfly/internal/storage"
)

// check verifies, on one snapshot, for every collection: each document has
// exactly the index entries its keys call for, each index entry belongs to
// a document that produces it, and the stored counters equal what is
// stored; and every hidden index of a TTL policy holds exactly the entries
// its collection's documents call for.
func (e *Engine) check(ctx context.Context) error {
	e.mu.RLock()
	var metas []*catalog.CollMeta
	var ctrs []*catalog.Counters
	for _, c := range e.cat.Colls {
		metas = append(metas, c.Meta)
		ctrs = append(ctrs, c.Stats)
	}
	snap := e.store.NewSnapshot()
	building := maps.Clone(e.building)
	e.mu.RUnlock()
	defer snap.Close()
	for i, m := range metas {
		if _, err := checkCollection(ctx, snap, m, ctrs[i]); err != nil {
			return fmt.Errorf("docdb: check %s.%s: %w", m.DB, m.Name, err)
		}
	}
	if err := checkOwners(ctx, snap, building); err != nil {
		return fmt.Errorf("docdb: check: %w", err)
	}
	if err := e.pol.Check(); err != nil {
		return fmt.Errorf("docdb: check policies: %w", err)
	}
	return nil
}

// checkOwners verifies that every document, index entry and counter record
// of snap belongs to something its catalog holds: documents to a
// collection, entries to a secondary index, to a hidden TTL policy index
// or to an index build in progress (building, the builds running when snap
// was taken; one interrupted by a crash is removed at Open), counters to a
// collection. Keys of a dropped collection or of a failed build that
// stayed behind would otherwise be invisible to every other check.
func checkOwners(ctx context.Context, snap *storage.Snapshot, building map[uint64]bool) error {
	ids, err := readCatalogOwners(snap)
	if err != nil {
		return err
	}
	for id, coll := range ids.builds {
		if _, ok := ids.colls[coll]; !ok {
			return fmt.Errorf("index %d is being built for collection %d, which does not exist", id, coll)
		}
		if !building[id] {
			return fmt.Errorf("index %d of collection %d has a build record but no build is running: an interrupted build left behind", id, coll)
		}
	}
	owned := func(id uint64) bool {
		_, isIndex := ids.indexes[id]
		_, isBuild := ids.builds[id]
		// A capped collection's natural order is under its own id.
		_, isColl := ids.colls[id]
		return isIndex || isBuild || ids.hidden[id] || isColl
	}
	if err := eachOwnerID(ctx, snap, storage.PrefixIndex, func(id uint64) error {
		if !owned(id) {
			return fmt.Errorf("index entries under index id %d, which no index owns", id)
		}
		return nil
	}); err != nil {
		return err
	}
	if err := eachOwnerID(ctx, snap, storage.PrefixDocument, func(id uint64) error {
		if _, ok := ids.colls[id]; !ok {
			return fmt.Errorf("documents under collection id %d, which no collection owns", id)
		}
		return nil
	}); err != nil {
		return err
	}
	lo := []byte{storage.PrefixCatalog, catalog.KeyStats}
	it, err := snap.NewIter(lo, storage.PrefixEnd(lo))
	if err != nil {
		return err
	}
	defer it.Close()
	for ok := it.First(); ok; ok = it.Next() {
		if len(it.Key()) != 10 {
			return fmt.Errorf("corrupt counters key %x", it.Key())
		}
		id := binary.BigEndian.Uint64(it.Key()[2:])
		if _, ok := ids.colls[id]; !ok {
			return fmt.Errorf("counters of collection id %d, which does not exist", id)
		}
	}
	if err := it.Error(); err != nil {
		return err
	}
	return checkSpanOwners(snap, ids.colls)
}

// eachOwnerID calls f with each distinct owner id (the 8 bytes after the
// prefix byte) of the keys under prefix, seeking past each owner's keys.
func eachOwnerID(ctx context.Context, snap *storage.Snapshot, prefix byte, f func(id uint64) error) error {
	lo := []byte{prefix}
	it, err := snap.NewIter(lo, storage.PrefixEnd(lo))
	if err != nil {
		return err
	}
	defer it.Close()
	for ok := it.First(); ok; {
		if err := ctx.Err(); err != nil {
			return err
		}
		k := it.Key()
		if len(k) < 9 {
			return fmt.Errorf("corrupt key %x", k)
		}
		id := binary.BigEndian.Uint64(k[1:9])
		if err := f(id); err != nil {
			return err
		}
		next := storage.PrefixEnd(k[:9])
		if next == nil {
			break
		}
		ok = it.SeekGE(next)
	}
	return it.Error()
}

// collTally is what checkCollection counted in one collection: its
// documents and the entries of each index, by index id (the _id index has
// one per document).
type collTally struct {
	docs    int64
	entries map[uint64]int64
}

// checkCollection verifies one collection as check does and returns what
// it counted; the tally is complete only when the error is nil.
func checkCollection(ctx context.Context, snap *storage.Snapshot, m *catalog.CollMeta, ctr *catalog.Counters) (collTally, error) {
	var docs, size int64
	entries := map[uint64]int64{}
	var spans spanTally
	if spansKept(m) {
		spans = spanTally{}
	}
	p := catalog.DocPrefix(m.ID)
	it, err := snap.NewIter(p, storage.PrefixEnd(p))
	if err != nil {
		return collTally{}, err
	}
	defer it.Close()
	for ok := it.First(); ok; ok = it.Next() {
		if err := ctx.Err(); err != nil {
			return collTally{}, err
		}
		sd, err := stored.New(append([]byte(nil), it.Value()...))
		if err != nil {
			return collTally{}, fmt.Errorf("document %x: %w", it.Key(), err)
		}
		if !bytes.Equal(it.Key()[len(p):], sd.IDEnc) {
			return collTally{}, fmt.Errorf("document %x is stored under another _id", it.Key())
		}
		docs++
		size += int64(len(sd.Raw))
		spans.add(sd)
		for _, ix := range m.Indexes {
			if ix.IsID {
				continue
			}
			keys, mk, err := ix.IndexKeys(sd.Doc)
			if err != nil {
				return collTally{}, fmt.Errorf("document %s: index %s: %w", fmtDoc(sd.Doc), ix.Name, err)
			}
			if mk && !ix.Multikey {
				return collTally{}, fmt.Errorf("index %s is multikey but not marked so", ix.Name)
			}
			for _, k := range keys {
				if _, err := snap.Get(catalog.EntryKey(ix.ID, k.Enc, sd.IDEnc)); err != nil {
					if errors.Is(err, storage.ErrNotFound) {
						return collTally{}, fmt.Errorf("document %s has no entry %s in index %s", fmtDoc(sd.Doc), fmtDoc(catalog.ToKeyDoc(ix, k.Values)), ix.Name)
					}
					return collTally{}, err
				}
			}
			entries[ix.ID] += int64(len(keys))
		}
	}
	if err := it.Error(); err != nil {
		return collTally{}, err
	}
	for _, ix := range m.Indexes {
		if ix.IsID {
			continue
		}
		n, err := checkIndexEntries(ctx, snap, m, ix)
		if err != nil {
			return collTally{}, fmt.Errorf("index %s: %w", ix.Name, err)
		}
		if n != entries[ix.ID] {
			return collTally{}, fmt.Errorf("index %s has %d entries, documents call for %d", ix.Name, n, entries[ix.ID])
		}
	}
	if err := checkNatural(ctx, snap, m, docs); err != nil {
		return collTally{}, err
	}
	if err := checkSpans(ctx, snap, m, spans); err != nil {
		return collTally{}, err
	}
	cDocs, cBytes, cIdx := ctr.Snapshot()
	if cDocs != docs || cBytes != size {
		return collTally{}, fmt.Errorf("counters say %d documents of %d bytes, the store holds %d of %d", cDocs, cBytes, docs, size)
	}
	for _, ix := range m.Indexes {
		want := entries[ix.ID]
		if ix.IsID {
			want = docs
		}
		if cIdx[ix.ID].Keys != want {
			return collTally{}, fmt.Errorf("counters say index %s has %d keys, it has %d", ix.Name, cIdx[ix.ID].Keys, want)
		}
	}
	for _, ix := range m.Indexes {
		if ix.IsID {
			entries[ix.ID] = docs
		}
	}
	return collTally{docs: docs, entries: entries}, nil
}

// checkIndexEntries verifies that every entry of ix points to a document
// that produces it, and returns the number of entries.
func checkIndexEntries(ctx context.Context, snap *storage.Snapshot, m *catalog.CollMeta, ix *catalog.IndexMeta) (int64, error) {
	p := catalog.IndexPrefix(ix.ID)
	it, err := snap.NewIter(p, storage.PrefixEnd(p))
	if err != nil {
		return 0, err
	}
	defer it.Close()
	var n int64
	for ok := it.First(); ok; ok = it.Next() {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		n++
		rest := it.Key()[len(p):]
		_, idEnc, err := ix.SplitEntry(rest)
		if err != nil {
			return 0, fmt.Errorf("entry %x: %w", it.Key(), err)
		}
		v, err := snap.Get(catalog.DocKey(m.ID, idEnc))
		if errors.Is(err, storage.ErrNotFound) {
			return 0, fmt.Errorf("entry %x points to a missing document", it.Key())
		}
		if err != nil {
			return 0, err
		}
		sd, err := stored.New(v)
		if err != nil {
			return 0, err
		}
		keys, _, err := ix.IndexKeys(sd.Doc)
		if err != nil {
			return 0, err
		}
		parts := rest[:len(rest)-len(idEnc)]
		found := false
		for _, k := range keys {
			if bytes.Equal(k.Enc, parts) {
				found = true
				break
			}
		}
		if !found {
			return 0, fmt.Errorf("entry %x is not a key of document %s", it.Key(), fmtDoc(sd.Doc))
		}
	}
	return n, it.Error()
}
