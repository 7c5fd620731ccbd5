package docdb

import (
	"time"

	"github.com/mayfly/mayfly/internal/docdb/catalog"
	"github.com/mayfly/mayfly/internal/expiry"
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

// reapSpan hands the documents of c due at now to the engine as one span,
// or reports nothing due.
func (s *ttlSource) reapSpan(c *catalog.Collection, meta *catalog.CollMeta, now time.Time) (expiry.Reaped, error) {
	rule, ok, err := s.e.spanRuleOf(meta, now)
	if err != nil || !ok {
		return expiry.Reaped{}, err
	}
	it, err := s.e.store.NewIter(rule.lo, rule.hi)
	if err != nil {
		return expiry.Reaped{}, err
	}
	found := it.First()
	err = it.Error()
	if cerr := it.Close(); err == nil {
		err = cerr
	}
	if err != nil || !found {
		return expiry.Reaped{}, err
	}
	sp := expiry.Span{Store: s.e.store, Start: rule.lo, End: rule.hi, Lock: &c.WriteMu}
	sp.Stage = func(b *storage.Batch, sp *expiry.Span) (func(), error) {
		return s.stageSpan(c, now, b, sp)
	}
	return expiry.Reaped{Spans: []expiry.Span{sp}}, nil
}

// stageSpan counts, under c's write lock, the documents due at now that
// the span holds, narrows the span to them and stages the collection's
// counters without them in b. A collection dropped or changed so that it
// no longer expires by spans leaves the span empty: the next pass deletes
// document by document.
func (s *ttlSource) stageSpan(c *catalog.Collection, now time.Time, b *storage.Batch, sp *expiry.Span) (func(), error) {
	sp.Due, sp.Keys = nil, 0
	if c.Dropped || !s.e.spanReapable(c.Meta) {
		return nil, nil
	}
	meta := c.Meta
	rule, ok, err := s.e.spanRuleOf(meta, now)
	if err != nil || !ok {
		return nil, err
	}
	it, err := s.e.store.NewIter(rule.lo, rule.hi)
	if err != nil {
		return nil, err
	}
	defer it.Close()
	var d catalog.Delta
	var idBytes int64
	pre := len(catalog.DocPrefix(meta.ID))
	for ok := it.First(); ok; ok = it.Next() {
		due, err := rule.due(it.Key())
		if err != nil {
			return nil, err
		}
		sp.Due = append(sp.Due, due)
		d.Bytes -= int64(len(it.Value()))
		idBytes += int64(9 + len(it.Key()) - pre)
	}
	if err := it.Error(); err != nil {
		return nil, err
	}
	if len(sp.Due) == 0 {
		return nil, nil
	}
	n := int64(len(sp.Due))
	d.Docs = -n
	d.AddIndex(meta.Indexes[0].ID, -n, -idBytes)
	// The _id index counts one key per document, as the per-document
	// deletion reports it.
	sp.Start, sp.End, sp.Keys = rule.lo, rule.hi, len(sp.Due)
	return c.Stats.Stage(b, meta.ID, d)
}
