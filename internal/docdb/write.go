package docdb

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/catalog"
	"github.com/mayfly/mayfly/internal/docdb/change"
	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
	"github.com/mayfly/mayfly/internal/docdb/stored"
	"github.com/mayfly/mayfly/internal/storage"
)

// writer applies document writes to one collection. It holds the
// collection's write lock (taken by its creator) for its whole life, so its
// uniqueness checks and index maintenance never race another writer. Each
// document is written with all of its index entries (and the collection's
// counters) in the writer's current batch; commit applies the batch
// atomically. Reads through the writer see its own uncommitted writes.
type writer struct {
	e    *Engine
	c    *catalog.Collection
	meta *catalog.CollMeta
	b    *storage.Batch
	d    catalog.Delta
	vis  visibility
	// multikey lists the indexes that became multikey in this batch.
	multikey map[uint64]bool
	// wb is b as the write hooks see it, with the expiry wake-up they
	// asked for.
	wb   change.Batch
	docs int // documents written in the current batch
	// cause is told to the hooks with the next change (change.Cause).
	cause change.Cause
	// capped is set when the collection is capped (capped.go).
	capped *cappedState
	// atOnce keeps the whole write in one batch (a retryable write, a
	// transaction's statement).
	atOnce bool
	// txn is the transaction the writer writes in, nil outside one: its
	// batch is the transaction's, and committing stages into it.
	txn *Txn
	// spans is whether the collection keeps span aggregates
	// (clustered_spans.go).
	spans spanState

	// waitTxns is set outside a transaction when a write of a document an
	// open transaction owns waits for it to end (txn_wait.go).
	waitTxns bool
	// committed is set once the writer committed a batch.
	committed bool
}

// Batch limits: a writer commits once its batch holds this many documents
// or bytes, so a large insert does not build one huge batch.
const (
	maxBatchDocs  = 1000
	maxBatchBytes = 8 << 20
)

// newWriter returns a writer on c, whose write lock the caller holds.
func (e *Engine) newWriter(c *catalog.Collection) *writer {
	w := &writer{e: e, c: c, meta: c.Meta, b: e.store.NewIndexedBatch(), vis: e.newVisibility(c.Meta)}
	w.initCapped()
	return w
}

// close discards uncommitted writes.
func (w *writer) close() {
	w.wb.TakeRecords()
	if w.txn != nil {
		return
	}
	if w.b != nil {
		w.b.Close()
		w.b = nil
	}
}

// full reports whether the batch should be committed before more writes.
func (w *writer) full() bool {
	return !w.atOnce && (w.docs >= maxBatchDocs || w.b.Len() >= maxBatchBytes)
}

// fetch returns the stored document with encoded _id idEnc, or nil.
func (w *writer) fetch(idEnc []byte) (*stored.Doc, error) {
	v, err := w.b.Get(catalog.DocKey(w.meta.ID, idEnc))
	if errors.Is(err, storage.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	sd, err := stored.New(v)
	if err != nil {
		return nil, fmt.Errorf("docdb: stored document: %w", err)
	}
	return sd, nil
}

// docKeys computes the entries of sd in every secondary index of the
// collection, in index order.
func (w *writer) docKeys(doc bson.D) ([][]catalog.IndexKey, error) {
	out := make([][]catalog.IndexKey, len(w.meta.Indexes))
	for i, ix := range w.meta.Indexes {
		if ix.IsID {
			continue
		}
		keys, mk, err := ix.IndexKeys(doc)
		if err != nil {
			return nil, err
		}
		if mk && !ix.Multikey {
			if w.multikey == nil {
				w.multikey = map[uint64]bool{}
			}
			w.multikey[ix.ID] = true
		}
		out[i] = keys
	}
	return out, nil
}

// checkUnique verifies that no other live document holds one of keys in
// the unique indexes. Conflicting documents that are expired (strict
// visibility) are deleted on the spot, as the sweeper would; they are
// returned through reaped so the caller can count them.
func (w *writer) checkUnique(idEnc []byte, keys [][]catalog.IndexKey) error {
	for i, ix := range w.meta.Indexes {
		if ix.IsID || !ix.Unique {
			continue
		}
		for _, k := range keys[i] {
			holders, err := w.holders(ix, k.Enc, idEnc)
			if err != nil {
				return err
			}
			for _, h := range holders {
				other, err := w.fetch(h)
				if err != nil {
					return err
				}
				if other == nil {
					return fmt.Errorf("docdb: index %s entry points to a missing document", ix.Name)
				}
				if w.vis.Hides(other.Doc) {
					if err := w.removeHidden(other); err != nil {
						return err
					}
					continue
				}
				return w.dupKey(ix, k.Values)
			}
		}
	}
	return nil
}

// holders returns the encoded _ids of the documents other than self that
// have an entry with parts enc in ix.
func (w *writer) holders(ix *catalog.IndexMeta, enc, self []byte) ([][]byte, error) {
	prefix := catalog.EntryKey(ix.ID, enc, nil)
	it, err := w.b.NewIter(prefix, storage.PrefixEnd(prefix))
	if err != nil {
		return nil, err
	}
	defer it.Close()
	var out [][]byte
	for ok := it.First(); ok; ok = it.Next() {
		id := it.Key()[len(prefix):]
		if !bytes.Equal(id, self) {
			out = append(out, append([]byte(nil), id...))
		}
	}
	return out, it.Error()
}

// dupKey builds the DuplicateKey error for ix and the key values.
func (w *writer) dupKey(ix *catalog.IndexMeta, values []any) error {
	return dupKeyError(w.meta, ix, catalog.ToKeyDoc(ix, values))
}

// dupKeyError is mongod's E11000 error with keyPattern and keyValue. For
// an index with a collation, as mongod words it, the message names the
// collation and shows each string of the key as its collation key in hex,
// and the error's info carries the collation.
func dupKeyError(m *catalog.CollMeta, ix *catalog.IndexMeta, keyValue bson.D) error {
	if ix.Collation == nil {
		return &mongoerr.Error{
			Code: mongoerr.DuplicateKey,
			Message: fmt.Sprintf("E11000 duplicate key error collection: %s.%s index: %s dup key: %s",
				m.DB, m.Name, ix.Name, fmtDoc(keyValue)),
			Info: map[string]any{"keyPattern": ix.Key, "keyValue": keyValue},
		}
	}
	shown := make(bson.D, len(keyValue))
	for i, e := range keyValue {
		shown[i] = e
		if s, ok := e.Value.(string); ok {
			shown[i].Value = "0x" + hex.EncodeToString([]byte(s))
		}
	}
	full := ix.Collation.Full()
	return &mongoerr.Error{
		Code: mongoerr.DuplicateKey,
		Message: fmt.Sprintf("E11000 duplicate key error collection: %s.%s index: %s collation: %s dup key: %s",
			m.DB, m.Name, ix.Name, fmtDoc(full), fmtDoc(shown)),
		Info: map[string]any{"keyPattern": ix.Key, "keyValue": keyValue, "collation": full},
	}
}

// insert writes a new document with its index entries. A live document
// with the same _id or unique key fails with DuplicateKey; an expired one
// is deleted first (strict visibility).
func (w *writer) insert(sd *stored.Doc) error {
	if err := w.cappedTooLarge(sd); err != nil {
		return err
	}
	existing, err := w.fetch(sd.IDEnc)
	if err != nil {
		return err
	}
	if existing != nil {
		if !w.vis.Hides(existing.Doc) {
			return dupKeyError(w.meta, w.meta.Indexes[0], bson.D{{Key: "_id", Value: sd.Doc[0].Value}})
		}
		if err := w.removeHidden(existing); err != nil {
			return err
		}
	}
	keys, err := w.docKeys(sd.Doc)
	if err != nil {
		return err
	}
	if err := w.checkUnique(sd.IDEnc, keys); err != nil {
		return err
	}
	if err := w.putDoc(sd); err != nil {
		return err
	}
	w.d.Docs++
	for i, ix := range w.meta.Indexes {
		for _, k := range keys[i] {
			if err := w.b.Set(catalog.EntryKey(ix.ID, k.Enc, sd.IDEnc), nil); err != nil {
				return err
			}
			if w.txn != nil && ix.Unique {
				w.txn.noteUnique(w.meta.ID, ix, k.Enc, sd.IDEnc)
			}
			w.d.AddIndex(ix.ID, 1, int64(9+len(k.Enc)+len(sd.IDEnc)))
		}
	}
	if err := w.cappedInsert(sd); err != nil {
		return err
	}
	return w.documentChanged(nil, sd)
}

// putDoc writes the document record and counts its bytes.
func (w *writer) putDoc(sd *stored.Doc) error {
	if err := w.gate(catalog.DocKey(w.meta.ID, sd.IDEnc)); err != nil {
		return err
	}
	if err := w.b.Set(catalog.DocKey(w.meta.ID, sd.IDEnc), sd.Raw); err != nil {
		return err
	}
	w.d.Bytes += int64(len(sd.Raw))
	w.d.AddIndex(w.meta.Indexes[0].ID, 1, int64(9+len(sd.IDEnc)))
	if err := w.countSpan(sd, 1); err != nil {
		return err
	}
	w.docs++
	return nil
}

// removeExpired is remove for a deletion made by the expiry engine: the
// hooks are told why.
func (w *writer) removeExpired(sd *stored.Doc, why change.Expiry) error {
	w.cause = change.Cause{Expiry: &why}
	defer func() { w.cause = change.Cause{} }()
	return w.remove(sd)
}

// replaceWhole is replace for a replacement update (a whole new
// document rather than update operators).
func (w *writer) replaceWhole(prev, next *stored.Doc) error {
	w.cause = change.Cause{Replacement: true}
	defer func() { w.cause = change.Cause{} }()
	return w.replace(prev, next)
}

// remove deletes a stored document and all of its index entries.
func (w *writer) remove(sd *stored.Doc) error {
	keys, err := w.entryKeysOf(sd.Doc)
	if err != nil {
		return err
	}
	if err := w.gate(catalog.DocKey(w.meta.ID, sd.IDEnc)); err != nil {
		return err
	}
	if err := w.b.Delete(catalog.DocKey(w.meta.ID, sd.IDEnc)); err != nil {
		return err
	}
	if err := w.cappedRemove(sd); err != nil {
		return err
	}
	w.d.Docs--
	w.d.Bytes -= int64(len(sd.Raw))
	w.d.AddIndex(w.meta.Indexes[0].ID, -1, -int64(9+len(sd.IDEnc)))
	if err := w.countSpan(sd, -1); err != nil {
		return err
	}
	for i, ix := range w.meta.Indexes {
		for _, k := range keys[i] {
			if err := w.b.Delete(catalog.EntryKey(ix.ID, k.Enc, sd.IDEnc)); err != nil {
				return err
			}
			w.d.AddIndex(ix.ID, -1, -int64(9+len(k.Enc)+len(sd.IDEnc)))
		}
	}
	w.docs++
	return w.documentChanged(sd, nil)
}

// entryKeysOf recomputes the entries a stored document has. A stored
// document always produced valid keys when it was written, so an error here
// means the store is corrupt.
func (w *writer) entryKeysOf(doc bson.D) ([][]catalog.IndexKey, error) {
	out := make([][]catalog.IndexKey, len(w.meta.Indexes))
	for i, ix := range w.meta.Indexes {
		if ix.IsID {
			continue
		}
		keys, _, err := ix.IndexKeys(doc)
		if err != nil {
			return nil, fmt.Errorf("docdb: keys of a stored document in %s: %w", ix.Name, err)
		}
		out[i] = keys
	}
	return out, nil
}

// replace writes next in place of prev (same _id), updating only the index
// entries that changed. A unique key held by another live document fails
// with DuplicateKey and writes nothing.
func (w *writer) replace(prev, next *stored.Doc) error {
	oldKeys, err := w.entryKeysOf(prev.Doc)
	if err != nil {
		return err
	}
	newKeys, err := w.docKeys(next.Doc)
	if err != nil {
		return err
	}
	if err := w.checkUnique(next.IDEnc, newKeys); err != nil {
		return err
	}
	if err := w.putDoc(next); err != nil {
		return err
	}
	w.d.Bytes -= int64(len(prev.Raw))
	w.d.AddIndex(w.meta.Indexes[0].ID, -1, -int64(9+len(prev.IDEnc)))
	if err := w.countSpan(prev, -1); err != nil {
		return err
	}
	for i, ix := range w.meta.Indexes {
		if ix.IsID {
			continue
		}
		gone, added := diffKeys(oldKeys[i], newKeys[i])
		for _, k := range gone {
			if err := w.b.Delete(catalog.EntryKey(ix.ID, k.Enc, prev.IDEnc)); err != nil {
				return err
			}
			w.d.AddIndex(ix.ID, -1, -int64(9+len(k.Enc)+len(prev.IDEnc)))
		}
		for _, k := range added {
			if err := w.b.Set(catalog.EntryKey(ix.ID, k.Enc, next.IDEnc), nil); err != nil {
				return err
			}
			if w.txn != nil && ix.Unique {
				w.txn.noteUnique(w.meta.ID, ix, k.Enc, next.IDEnc)
			}
			w.d.AddIndex(ix.ID, 1, int64(9+len(k.Enc)+len(next.IDEnc)))
		}
	}
	return w.documentChanged(prev, next)
}

// diffKeys returns the keys only in a and those only in b; both are sorted
// by encoding.
func diffKeys(a, b []catalog.IndexKey) (onlyA, onlyB []catalog.IndexKey) {
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch c := bytes.Compare(a[i].Enc, b[j].Enc); {
		case c == 0:
			i++
			j++
		case c < 0:
			onlyA = append(onlyA, a[i])
			i++
		default:
			onlyB = append(onlyB, b[j])
			j++
		}
	}
	onlyA = append(onlyA, a[i:]...)
	onlyB = append(onlyB, b[j:]...)
	return onlyA, onlyB
}

// commit applies the batch: documents, entries, counters and, when an index
// became multikey, the catalog record, atomically. The writer can be used
// again afterwards with a fresh batch.
func (w *writer) commit() error { return w.commitBatch(true) }

// finish is commit for the writer's last batch: no fresh batch is opened
// after it, and the writer may only be closed.
func (w *writer) finish() error { return w.commitBatch(false) }

// commitBatch commits the batch and, when again is set, opens a fresh one.
func (w *writer) commitBatch(again bool) error {
	if w.txn != nil {
		w.txn.absorb(w)
		return nil
	}
	if w.b.Empty() {
		return nil
	}
	if err := w.trimCapped(); err != nil {
		return err
	}
	apply, err := w.c.Stats.Stage(w.b, w.meta.ID, w.d)
	if err != nil {
		return err
	}
	if err := catalog.StageSpans(w.e.store, w.b, w.meta.ID, w.d); err != nil {
		return err
	}
	var next *catalog.CollMeta
	if len(w.multikey) > 0 {
		idx := make([]*catalog.IndexMeta, len(w.meta.Indexes))
		for i, ix := range w.meta.Indexes {
			idx[i] = ix
			if w.multikey[ix.ID] {
				c := ix.Clone()
				c.Multikey = true
				idx[i] = c
			}
		}
		next = w.meta.WithIndexes(idx)
		if err := catalog.PutRecord(w.b, next); err != nil {
			return err
		}
		w.e.mu.Lock()
		err = w.e.commitLogged(w.b, w.wb.TakeRecords())
		if err == nil {
			w.c.Meta = next
		}
		w.e.mu.Unlock()
	} else {
		err = w.e.commitLogged(w.b, w.wb.TakeRecords())
	}
	if err != nil {
		return fmt.Errorf("docdb: write %s.%s: %w", w.meta.DB, w.meta.Name, err)
	}
	w.committed = true
	apply()
	w.cappedCommitted()
	if next != nil {
		w.meta = next
		w.vis.meta = next
	}
	if due, ok := w.wb.TakeWake(); ok {
		w.e.opts.Expiry.Wake(time.UnixMilli(due))
	}
	w.b.Close()
	w.b = nil
	if again {
		w.b = w.e.store.NewIndexedBatch()
	}
	w.d = catalog.Delta{}
	w.multikey = nil
	w.docs = 0
	return nil
}
