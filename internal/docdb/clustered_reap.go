package docdb

import (
	"bytes"
	"math"
	"slices"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/catalog"
	"github.com/mayfly/mayfly/internal/expiry"
	"github.com/mayfly/mayfly/internal/keycodec"
	"github.com/mayfly/mayfly/internal/storage"
)

// Clustered collections expire by ranges. A clustered collection's
// documents are keyed by their encoded _id, and Date _ids sort together in
// date order, so the documents its expireAfterSeconds makes due at now are
// the one key span from the first Date _id up to the cut-off date
// (now - expireAfterSeconds). When nothing else holds an entry of those
// documents, the span is all there is to delete: the source hands it to
// the expiry engine, which removes it with one range deletion, however many
// documents it holds, instead of a tombstone per document.
//
// That holds when the collection has no index but its clustered one, no
// TTL policy of its collection group keeps hidden entries for it, and no
// change log records a delete event per document. Otherwise the collection
// expires document by document like any TTL index.
//
// What the span holds is counted under the collection's write lock, just
// before the deletion commits (expiry.Span.Stage), so the collection's
// counters and the engine's metrics (deletedDocuments counts the
// documents) stay exact although writers may add due documents to the
// span between the batch and its deletion.
//
// A clustered collection that keeps span aggregates (clustered_spans.go)
// is counted without reading each document: the spans of
// catalog.SpanMillis whose last date is due are counted by their
// aggregates, which the deletion's batch removes, and only the documents of
// the span holding the cut-off are read, their count and bytes taken from
// that span's aggregate. The lag histogram records every document of a
// whole span at the span's last due time, which is at most
// catalog.SpanMillis after the document's own: the recorded lag is short
// of the true one by less than that, within one of the histogram's
// buckets (two per doubling: the next bucket down) for every lag of 3.5
// spans or more.

// spanReapable reports whether the expired documents of m may be deleted as
// one key span: m is clustered and nothing outside its document keys
// follows its documents.
func (e *Engine) spanReapable(m *catalog.CollMeta) bool {
	if !m.Clustered() || e.events != nil || e.pol.IndexOf(m.ID) != nil {
		return false
	}
	return len(m.Indexes) == 1 && m.Indexes[0].IsID
}

// spanRule is what is due at one now in a collection that expires by
// spans: the key span [lo, hi) of its due documents and each one's due time.
type spanRule struct {
	lo, hi []byte
	due    func(key []byte) (int64, error)
}

// spanRuleOf returns the span rule of the collection m at now: its due Date
// _ids for a clustered collection, its due buckets for a time-series one;
// ok is false when nothing of m can expire (a time-series collection with
// extended-range buckets expires nothing).
func (e *Engine) spanRuleOf(m *catalog.CollMeta, now time.Time) (spanRule, bool, error) {
	ix := m.ClusteredTTLIndex()
	if ix == nil {
		return spanRule{}, false, nil
	}
	if o, ok := timeseriesOptions(m); ok {
		if ext, err := e.bucketsExtended(m); err != nil || ext {
			return spanRule{}, false, err
		}
		return bucketRule(m, ix, o, now)
	}
	lo, hi, err := dateRange(ix, now.UnixMilli()-ix.ExpireAfter*1000, false)
	if err != nil {
		return spanRule{}, false, err
	}
	return spanRule{lo: lo, hi: hi, due: func(key []byte) (int64, error) {
		date, _, err := entryDate(ix, key)
		return catalog.AddSeconds(date, ix.ExpireAfter), err
	}}, true, nil
}

// spanCount is what a span of due documents holds: their due times, the
// counters' change without them, and the collection state it was read in.
// For a collection that keeps span aggregates (clustered_spans.go), the
// whole spans before edge were counted by their aggregates, which the
// deletion removes, and the documents from edge on by reading them:
// partial is what they take from the aggregate of the span at edge.
type spanCount struct {
	meta     *catalog.CollMeta
	gen      uint64 // the counters' generation before the read
	lo, hi   []byte
	dues     []int64
	delta    catalog.Delta
	readable bool // false when nothing of meta can expire
	byspans  bool // counted by aggregates
	edge     int64
	partial  catalog.SpanCount
}

// countSpan reads the documents of c's collection meta due at now. It
// takes no lock: the caller checks gen under the write lock before using
// the count.
func (s *ttlSource) countSpan(c *catalog.Collection, meta *catalog.CollMeta, now time.Time) (*spanCount, error) {
	sc := &spanCount{meta: meta, gen: c.Stats.Generation()}
	rule, ok, err := s.e.spanRuleOf(meta, now)
	if err != nil || !ok {
		return sc, err
	}
	sc.lo, sc.hi, sc.readable = rule.lo, rule.hi, true
	readFrom := rule.lo
	if spansKept(meta) {
		if sc.byspans, err = catalog.KeepsSpans(s.e.store, meta.ID); err != nil {
			return nil, err
		}
	}
	var full catalog.SpanCount
	if sc.byspans {
		ix := meta.ClusteredTTLIndex()
		if full, readFrom, err = s.countWholeSpans(sc, ix, now.UnixMilli()-ix.ExpireAfter*1000); err != nil {
			return nil, err
		}
	}
	if bytes.Compare(readFrom, rule.hi) > 0 {
		readFrom = rule.hi
	}
	it, err := s.e.store.NewIter(readFrom, rule.hi)
	if err != nil {
		return nil, err
	}
	defer it.Close()
	var idBytes int64
	pre := len(catalog.DocPrefix(meta.ID))
	for ok := it.First(); ok; ok = it.Next() {
		due, err := rule.due(it.Key())
		if err != nil {
			return nil, err
		}
		sc.dues = append(sc.dues, due)
		sc.delta.Bytes -= int64(len(it.Value()))
		idBytes += int64(9 + len(it.Key()) - pre)
	}
	if err := it.Error(); err != nil {
		return nil, err
	}
	n := int64(len(sc.dues)) - full.Docs
	sc.partial = catalog.SpanCount{Docs: n, Bytes: -sc.delta.Bytes, IDBytes: idBytes}
	sc.delta.Bytes -= full.Bytes
	idBytes += full.IDBytes
	n = int64(len(sc.dues))
	sc.delta.Docs = -n
	// The _id index counts one key per document, as the per-document
	// deletion reports it.
	sc.delta.AddIndex(meta.Indexes[0].ID, -n, -idBytes)
	return sc, nil
}

// countWholeSpans counts, by their aggregates, the documents of the spans
// that end at or before cutoff (their last date is due): it sets sc.edge
// to the start of the first span that does not, adds one due time per
// document to sc.dues, and returns their sum and the key from which the
// due documents are read one by one. Every document of a span gets the
// span's last due time, so its recorded lag is short of its true lag by
// less than catalog.SpanMillis.
func (s *ttlSource) countWholeSpans(sc *spanCount, ix *catalog.IndexMeta, cutoff int64) (catalog.SpanCount, []byte, error) {
	sc.edge = catalog.SpanStart(cutoff)
	if last := catalog.SpanLast(sc.edge); last == cutoff && last < math.MaxInt64 {
		sc.edge = last + 1
	}
	var sum catalog.SpanCount
	lo, hi := catalog.SpanKeysBelow(sc.meta.ID, sc.edge)
	it, err := s.e.store.NewIter(lo, hi)
	if err != nil {
		return sum, nil, err
	}
	defer it.Close()
	for ok := it.First(); ok; ok = it.Next() {
		start, c, err := catalog.DecodeSpan(it.Key(), it.Value())
		if err != nil {
			return sum, nil, err
		}
		due := catalog.AddSeconds(catalog.SpanLast(start), ix.ExpireAfter)
		for range c.Docs {
			sc.dues = append(sc.dues, due)
		}
		sum = sum.Add(c)
	}
	if err := it.Error(); err != nil {
		return sum, nil, err
	}
	from, err := keycodec.AppendValue(catalog.DocPrefix(sc.meta.ID), bson.DateTime(sc.edge), false)
	return sum, from, err
}

// stageSpanAggregates adds to b the aggregates' change of sc's deletion:
// the whole spans go, and the span at the edge loses the documents read
// in it. The caller holds the collection's write lock.
func (s *ttlSource) stageSpanAggregates(b *storage.Batch, sc *spanCount) error {
	if !sc.byspans {
		return nil
	}
	id := sc.meta.ID
	if err := b.DeleteRange(catalog.SpanKeysBelow(id, sc.edge)); err != nil {
		return err
	}
	if sc.partial == (catalog.SpanCount{}) {
		return nil
	}
	cur, err := catalog.GetSpan(s.e.store, id, sc.edge)
	if err != nil {
		return err
	}
	return catalog.PutSpan(b, id, sc.edge, cur.Add(sc.partial.Neg()))
}

// reapSpan hands the documents of c due at now to the engine as one span,
// or reports nothing due. It counts them in b's preparation (at idle
// priority, without a lock); the span's Stage, under the write lock, uses
// the count when no write has committed since, and counts again otherwise.
func (s *ttlSource) reapSpan(c *catalog.Collection, meta *catalog.CollMeta, now time.Time, b expiry.Batch) (expiry.Reaped, error) {
	var sc *spanCount
	var err error
	b.RunPrepare(func() { sc, err = s.countSpan(c, meta, now) })
	if err != nil || !sc.readable || len(sc.dues) == 0 {
		return expiry.Reaped{}, err
	}
	sp := expiry.Span{Store: s.e.store, Start: sc.lo, End: sc.hi, Lock: &c.WriteMu}
	sp.Stage = func(b *storage.Batch, sp *expiry.Span) (func(), error) {
		return s.stageSpan(c, now, sc, b, sp)
	}
	return expiry.Reaped{Spans: []expiry.Span{sp}}, nil
}

// stageSpan runs under c's write lock just before the span's deletion: it
// sets the span to the documents due at now it holds (prepared, unless a
// write committed since it was counted) and stages the collection's
// counters without them in b. A collection dropped or changed so that it
// no longer expires by spans leaves the span empty: the next pass deletes
// document by document.
func (s *ttlSource) stageSpan(c *catalog.Collection, now time.Time, prepared *spanCount, b *storage.Batch, sp *expiry.Span) (func(), error) {
	sp.Due, sp.Keys = nil, 0
	if c.Dropped || !s.e.spanReapable(c.Meta) {
		return nil, nil
	}
	sc := prepared
	if c.Meta != sc.meta || c.Stats.Generation() != sc.gen {
		var err error
		if sc, err = s.countSpan(c, c.Meta, now); err != nil {
			return nil, err
		}
	}
	if !sc.readable || len(sc.dues) == 0 {
		return nil, nil
	}
	sp.Start, sp.End, sp.Due, sp.Keys = sc.lo, sc.hi, sc.dues, len(sc.dues)
	if err := s.stageSpanAggregates(b, sc); err != nil {
		return nil, err
	}
	return c.Stats.Stage(b, sc.meta.ID, sc.delta)
}

// spansCountDue is CountDue for a clustered collection: counted as a reap
// counts it (by its span aggregates when it keeps them), so the backlog
// gauge of a storm reads no more than its deletion. The oldest and newest
// due times are those the lag histogram would record.
func (s *ttlSource) spansCountDue(c *catalog.Collection, meta *catalog.CollMeta, now time.Time) (int64, time.Time, time.Time, error) {
	sc, err := s.countSpan(c, meta, now)
	if err != nil || len(sc.dues) == 0 {
		return 0, time.Time{}, time.Time{}, err
	}
	return int64(len(sc.dues)), time.UnixMilli(slices.Min(sc.dues)), time.UnixMilli(slices.Max(sc.dues)), nil
}
