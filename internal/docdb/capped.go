package docdb

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/catalog"
	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
	"github.com/mayfly/mayfly/internal/docdb/stored"
	"github.com/mayfly/mayfly/internal/storage"
)

// Capped collections (catalog/capped.go holds their key layout).
//
// Rules:
//   - Every document inserted into a capped collection gets the next
//     natural-order sequence, in the batch of its insert; deleting it
//     removes its natural-order entry and position; an update keeps both.
//   - A batch that leaves the collection over its bound removes the oldest
//     documents before it commits, in the same batch: their documents and
//     index entries one by one (the _id and secondary indexes are not in
//     insertion order), their natural-order entries as one range deletion
//     of exactly their span, and the counters by their exact sizes. The
//     change hooks see each removal as a delete.
//   - Fewer than rangeTrimMin natural-order entries (the steady state of a
//     full collection: each insert removes one) are deleted one by one
//     instead: a range tombstone costs every later read of the memtable a
//     re-fragmentation of all its range tombstones, so one per insert
//     makes reads slower as the memtable fills, while a point tombstone
//     costs nothing until it is read past.
//   - A single document larger than the size bound is refused
//     (BSONObjectTooLarge).
//   - The sequence counter is loaded from the last natural-order entry on
//     the collection's first write after Open and kept in
//     catalog.Collection.NextNatural under the collection's write lock.

// cappedState is a writer's view of its capped collection.
type cappedState struct {
	bound catalog.Capped
	// inserted is set once the current batch has inserted a document, so
	// the bound must be checked before it commits; appended stays set
	// until the commit has told the tailable cursors.
	inserted, appended bool
	// oldest is the value of the collection's OldestNatural once the
	// batch commits (0: unchanged).
	oldest uint64
}

// initCapped sets up w for its collection when it is capped.
func (w *writer) initCapped() {
	if c, ok := w.meta.Capped(); ok {
		w.capped = &cappedState{bound: c}
	}
}

// cappedInsert gives sd, just inserted, the next natural-order position.
func (w *writer) cappedInsert(sd *stored.Doc) error {
	if w.capped == nil {
		return nil
	}
	seq, err := w.nextNatural()
	if err != nil {
		return err
	}
	if err := w.b.Set(catalog.NaturalKey(w.meta.ID, seq), sd.IDEnc); err != nil {
		return err
	}
	if err := w.b.Set(catalog.PositionKey(w.meta.ID, sd.IDEnc), binary.BigEndian.AppendUint64(nil, seq)); err != nil {
		return err
	}
	w.capped.inserted, w.capped.appended = true, true
	return nil
}

// cappedTooLarge refuses a document that alone passes the size bound.
func (w *writer) cappedTooLarge(sd *stored.Doc) error {
	if w.capped == nil || int64(len(sd.Raw)) <= w.capped.bound.MaxSize {
		return nil
	}
	return mongoerr.New(mongoerr.BSONObjectTooLarge, "object to insert exceeds cappedMaxSize")
}

// cappedRemove drops the natural-order entry and position of sd, being
// deleted.
func (w *writer) cappedRemove(sd *stored.Doc) error {
	if w.capped == nil {
		return nil
	}
	pos := catalog.PositionKey(w.meta.ID, sd.IDEnc)
	v, err := w.b.Get(pos)
	if errors.Is(err, storage.ErrNotFound) {
		return fmt.Errorf("docdb: capped collection %s.%s: document without a natural-order position", w.meta.DB, w.meta.Name)
	}
	if err != nil {
		return err
	}
	if len(v) != 8 {
		return fmt.Errorf("docdb: capped collection %s.%s: corrupt natural-order position", w.meta.DB, w.meta.Name)
	}
	if err := w.b.Delete(catalog.NaturalKey(w.meta.ID, binary.BigEndian.Uint64(v))); err != nil {
		return err
	}
	return w.b.Delete(pos)
}

// nextNatural returns the next sequence of the collection, loading the
// counter from the last natural-order entry the first time.
func (w *writer) nextNatural() (uint64, error) {
	if w.c.NextNatural == 0 {
		last, err := lastNatural(w.b, w.meta.ID)
		if err != nil {
			return 0, err
		}
		w.c.NextNatural = last + 1
	}
	seq := w.c.NextNatural
	w.c.NextNatural++
	return seq, nil
}

// lastNatural returns the sequence of the newest natural-order entry of
// the collection, 0 when it has none.
func lastNatural(r storage.Reader, collID uint64) (uint64, error) {
	p := catalog.NaturalPrefix(collID)
	it, err := r.NewIter(p, storage.PrefixEnd(p))
	if err != nil {
		return 0, err
	}
	defer it.Close()
	if !it.Last() {
		return 0, it.Error()
	}
	seq, ok := catalog.NaturalSeq(it.Key())
	if !ok {
		return 0, fmt.Errorf("docdb: corrupt natural-order key %x", it.Key())
	}
	return seq, nil
}

// trimCapped removes the oldest documents while the collection, as the
// batch leaves it, is over its bound.
func (w *writer) trimCapped() error {
	if w.capped == nil || !w.capped.inserted {
		return nil
	}
	w.capped.inserted = false
	docs, bytes, _ := w.c.Stats.Snapshot()
	docs += w.d.Docs
	bytes += w.d.Bytes
	if !w.capped.bound.Over(docs, bytes) {
		return nil
	}
	victims, keys, err := w.oldest(docs, bytes)
	if err != nil || len(victims) == 0 {
		return err
	}
	for _, sd := range victims {
		if err := w.removeOldest(sd); err != nil {
			return err
		}
	}
	if len(keys) < rangeTrimMin {
		for _, k := range keys {
			if err := w.b.Delete(k); err != nil {
				return err
			}
		}
		return nil
	}
	return w.b.DeleteRange(keys[0], append(keys[len(keys)-1], 0))
}

// rangeTrimMin is the fewest natural-order entries a trim deletes with one
// range deletion; fewer go one by one.
const rangeTrimMin = 16

// oldest returns the oldest documents whose removal brings a collection of
// docs documents and bytes bytes within the bound, and their natural-order
// keys.
func (w *writer) oldest(docs, bytes int64) ([]*stored.Doc, [][]byte, error) {
	p := catalog.NaturalPrefix(w.meta.ID)
	lo := p
	if w.c.OldestNatural > 0 {
		lo = catalog.NaturalKey(w.meta.ID, w.c.OldestNatural)
	}
	it, err := w.b.NewIter(lo, storage.PrefixEnd(p))
	if err != nil {
		return nil, nil, err
	}
	defer it.Close()
	var out []*stored.Doc
	var keys [][]byte
	for ok := it.First(); ok && w.capped.bound.Over(docs, bytes); ok = it.Next() {
		sd, err := w.fetch(it.Value())
		if err != nil {
			return nil, nil, err
		}
		if sd == nil {
			return nil, nil, fmt.Errorf("docdb: capped collection %s.%s: natural-order entry of a missing document", w.meta.DB, w.meta.Name)
		}
		out = append(out, sd)
		docs--
		bytes -= int64(len(sd.Raw))
		keys = append(keys, append([]byte(nil), it.Key()...))
	}
	if n := len(keys); n > 0 {
		seq, _ := catalog.NaturalSeq(keys[n-1])
		w.capped.oldest = seq + 1
	}
	return out, keys, it.Error()
}

// removeOldest deletes a document removed by capping: its record, index
// entries and position; its natural-order entry goes with the range.
func (w *writer) removeOldest(sd *stored.Doc) error {
	if err := w.b.Delete(catalog.PositionKey(w.meta.ID, sd.IDEnc)); err != nil {
		return err
	}
	c := w.capped
	w.capped = nil // remove must not look the position up again
	err := w.remove(sd)
	w.capped = c
	return err
}

// dropNatural writes into b the deletion of a capped collection's
// natural-order entries and positions.
func dropNatural(b *storage.Batch, m *catalog.CollMeta) error {
	if _, ok := m.Capped(); !ok {
		return nil
	}
	p := catalog.NaturalSpan(m.ID)
	return b.DeleteRange(p, storage.PrefixEnd(p))
}

// cappedOptions returns the capped fields of the options a create stores:
// none for an ordinary collection.
func (r CreateCollectionRequest) cappedOptions() bson.D {
	if r.Capped == nil {
		return bson.D{}
	}
	return catalog.CappedOptions(r.Capped.bound())
}

// bound returns the stored bound of o: the size rounded up to 256 bytes.
func (o CappedOptions) bound() catalog.Capped {
	return catalog.Capped{MaxSize: catalog.RoundCappedSize(o.Size), MaxDocs: o.Max}
}

// checkNatural verifies a capped collection's natural order: one entry per
// document (docs of them), each naming a stored document whose position
// points back at it, and no position without its entry.
func checkNatural(ctx context.Context, snap *storage.Snapshot, m *catalog.CollMeta, docs int64) error {
	if _, ok := m.Capped(); !ok {
		return nil
	}
	p := catalog.NaturalPrefix(m.ID)
	it, err := snap.NewIter(p, storage.PrefixEnd(p))
	if err != nil {
		return err
	}
	defer it.Close()
	var n int64
	for ok := it.First(); ok; ok = it.Next() {
		if err := ctx.Err(); err != nil {
			return err
		}
		seq, ok := catalog.NaturalSeq(it.Key())
		if !ok {
			return fmt.Errorf("corrupt natural-order key %x", it.Key())
		}
		idEnc := it.Value()
		if _, err := snap.Get(catalog.DocKey(m.ID, idEnc)); err != nil {
			return fmt.Errorf("natural-order entry %d: document: %w", seq, err)
		}
		pos, err := snap.Get(catalog.PositionKey(m.ID, idEnc))
		if err != nil {
			return fmt.Errorf("natural-order entry %d: position: %w", seq, err)
		}
		if len(pos) != 8 || binary.BigEndian.Uint64(pos) != seq {
			return fmt.Errorf("natural-order entry %d: the document's position says %x", seq, pos)
		}
		n++
	}
	if err := it.Error(); err != nil {
		return err
	}
	if n != docs {
		return fmt.Errorf("capped collection has %d natural-order entries for %d documents", n, docs)
	}
	pp := catalog.PositionKey(m.ID, nil)
	pit, err := snap.NewIter(pp, storage.PrefixEnd(pp))
	if err != nil {
		return err
	}
	defer pit.Close()
	var positions int64
	for ok := pit.First(); ok; ok = pit.Next() {
		positions++
	}
	if err := pit.Error(); err != nil {
		return err
	}
	if positions != n {
		return fmt.Errorf("capped collection has %d positions for %d natural-order entries", positions, n)
	}
	return nil
}
