package docdb

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/catalog"
	"github.com/mayfly/mayfly/internal/docdb/stored"
	"github.com/mayfly/mayfly/internal/storage"
)

// Span aggregates of clustered collections (catalog/spans.go). Every
// write of a document with a Date _id to a clustered collection that is
// not a time-series one changes the aggregate of the _id's span in the
// same batch, so the expiry engine counts a due range by its aggregates
// (clustered_reap.go). A collection keeps them from its creation on; one
// created by a build without them (no marker) is never given any, and
// expires counting document by document.

// spansKept reports whether m is of the kind that keeps span aggregates.
func spansKept(m *catalog.CollMeta) bool {
	if !m.Clustered() {
		return false
	}
	_, ts := catalog.FieldOf(m.Options, "timeseries")
	return !ts
}

// markSpans writes the marker of a new collection's aggregates into b when
// m keeps them.
func markSpans(b *storage.Batch, m *catalog.CollMeta) error {
	if !spansKept(m) {
		return nil
	}
	return catalog.MarkSpans(b, m.ID)
}

// dropSpans deletes the marker and every aggregate of m in b.
func dropSpans(b *storage.Batch, m *catalog.CollMeta) error {
	p := catalog.SpansMarkerKey(m.ID)
	return b.DeleteRange(p, storage.PrefixEnd(p))
}

// spanState is whether a writer's collection keeps span aggregates, looked
// up at the first document that could change one.
type spanState int8

const (
	spansUnknown spanState = iota
	spansOn
	spansOff
)

// dateID returns the date of sd's _id when it is a Date.
func dateID(sd *stored.Doc) (int64, bool) {
	if len(sd.Doc) == 0 || sd.Doc[0].Key != "_id" {
		return 0, false
	}
	d, ok := sd.Doc[0].Value.(bson.DateTime)
	return int64(d), ok
}

// countSpan adds sign times sd to the aggregate of its _id's span in the
// writer's pending change, when the collection keeps aggregates.
func (w *writer) countSpan(sd *stored.Doc, sign int64) error {
	date, ok := dateID(sd)
	if !ok {
		return nil
	}
	if w.spans == spansUnknown {
		w.spans = spansOff
		if spansKept(w.meta) {
			on, err := catalog.KeepsSpans(w.e.store, w.meta.ID)
			if err != nil {
				return err
			}
			if on {
				w.spans = spansOn
			}
		}
	}
	if w.spans != spansOn {
		return nil
	}
	w.d.AddSpan(catalog.SpanStart(date), catalog.SpanCount{
		Docs:    sign,
		Bytes:   sign * int64(len(sd.Raw)),
		IDBytes: sign * int64(9+len(sd.IDEnc)),
	})
	return nil
}

// spanTally is what a check's scan of a collection's documents finds for
// the span aggregates.
type spanTally map[int64]catalog.SpanCount

// add counts sd in its span when its _id is a Date; a nil tally counts
// nothing.
func (t spanTally) add(sd *stored.Doc) {
	if t == nil {
		return
	}
	if date, ok := dateID(sd); ok {
		start := catalog.SpanStart(date)
		t[start] = t[start].Add(catalog.SpanCount{Docs: 1, Bytes: int64(len(sd.Raw)), IDBytes: int64(9 + len(sd.IDEnc))})
	}
}

// checkSpans verifies that m's stored span aggregates are exactly what its
// documents (tallied in want) call for, when m keeps them, and that m has
// none otherwise.
func checkSpans(ctx context.Context, snap *storage.Snapshot, m *catalog.CollMeta, want spanTally) error {
	kept, err := catalog.KeepsSpans(snap, m.ID)
	if err != nil {
		return err
	}
	if kept && !spansKept(m) {
		return fmt.Errorf("span aggregates marked for a collection that keeps none")
	}
	lo, _ := catalog.SpanKeysBelow(m.ID, math.MinInt64)
	it, err := snap.NewIter(lo, storage.PrefixEnd(catalog.SpansMarkerKey(m.ID)))
	if err != nil {
		return err
	}
	defer it.Close()
	seen := 0
	for ok := it.First(); ok; ok = it.Next() {
		if err := ctx.Err(); err != nil {
			return err
		}
		start, got, err := catalog.DecodeSpan(it.Key(), it.Value())
		if err != nil {
			return err
		}
		if !kept {
			return fmt.Errorf("span aggregate at %d without the aggregates' marker", start)
		}
		if got != want[start] {
			return fmt.Errorf("span aggregate at %s says %+v, its documents %+v", time.UnixMilli(start).UTC().Format(time.RFC3339Nano), got, want[start])
		}
		seen++
	}
	if err := it.Error(); err != nil {
		return err
	}
	if kept && seen != len(want) {
		return fmt.Errorf("%d span aggregates stored, the documents fill %d spans", seen, len(want))
	}
	return nil
}

// checkSpanOwners verifies that every span aggregate and marker belongs to
// a collection of colls (by id).
func checkSpanOwners(snap *storage.Snapshot, colls map[uint64]string) error {
	lo := []byte{storage.PrefixCatalog, catalog.KeySpans}
	it, err := snap.NewIter(lo, storage.PrefixEnd(lo))
	if err != nil {
		return err
	}
	defer it.Close()
	for ok := it.First(); ok; {
		k := it.Key()
		if len(k) < 10 {
			return fmt.Errorf("corrupt span aggregate key %x", k)
		}
		id := binary.BigEndian.Uint64(k[2:10])
		if _, ok := colls[id]; !ok {
			return fmt.Errorf("span aggregates of collection id %d, which does not exist", id)
		}
		next := storage.PrefixEnd(catalog.SpansMarkerKey(id))
		if next == nil {
			break
		}
		ok = it.SeekGE(next)
	}
	return it.Error()
}
