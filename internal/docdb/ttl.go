package docdb

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/catalog"
	"github.com/mayfly/mayfly/internal/docdb/change"
	"github.com/mayfly/mayfly/internal/docdb/policy"
	"github.com/mayfly/mayfly/internal/docdb/stored"
	"github.com/mayfly/mayfly/internal/expiry"
	"github.com/mayfly/mayfly/internal/keycodec"
	"github.com/mayfly/mayfly/internal/storage"
)

// TTL index sources: every TTL index is an expiry.Source whose
// ordered index is the TTL index itself. Its Date-typed entries are in date
// order, so the next due item is the first Date entry plus
// expireAfterSeconds, and the due items are the Date entries up to
// now - expireAfterSeconds. Non-Date values are never in that range, so
// they never expire, as in MongoDB.
//
// The source holds only ids: it reads the current metadata at every call,
// so collMod's new expireAfterSeconds applies at once, a renamed
// collection keeps expiring (its source is re-registered under the new
// name), and a dropped index or collection yields nothing.

// ttlSource is the expiry.Source of one TTL index.
type ttlSource struct {
	e      *Engine
	name   string
	collID uint64
	ixID   uint64

	mu     sync.Mutex
	resume resumePoint // guarded by mu

	// afterPrepare, when set (by tests), runs between building a batch
	// and taking the collection's write lock to check and commit it.
	afterPrepare func()
}

var (
	_ expiry.Source  = (*ttlSource)(nil)
	_ expiry.Counter = (*ttlSource)(nil)
	_ expiry.CatchUp = (*ttlSource)(nil)
)

// ttlCatchUpFactor is how many times ttlDeleteBatchSize a TTL index's
// batch may grow to while the reaper is behind: each batch waits its turn
// for the collection's write lock behind every inserting connection, whose
// turns hold whole insertMany requests.
const ttlCatchUpFactor = 16

// CatchUpFactor implements expiry.CatchUp.
func (s *ttlSource) CatchUpFactor() int { return ttlCatchUpFactor }

// ttlSourceName is the source name of a TTL index: ttl_index:db.coll.index.
func ttlSourceName(m *catalog.CollMeta, ix *catalog.IndexMeta) string {
	return fmt.Sprintf("ttl_index:%s.%s.%s", m.DB, m.Name, ix.Name)
}

// Name implements expiry.Source.
func (s *ttlSource) Name() string { return s.name }

// Kind implements expiry.Source.
func (s *ttlSource) Kind() expiry.Kind { return expiry.KindTTLIndex }

// current returns the live collection and index of the source, or nils
// when either is gone or the index is no longer a usable TTL index.
func (s *ttlSource) current() (*catalog.Collection, *catalog.CollMeta, *catalog.IndexMeta) {
	s.e.mu.RLock()
	defer s.e.mu.RUnlock()
	for _, c := range s.e.cat.Colls {
		if c.Meta.ID != s.collID {
			continue
		}
		if ix := s.indexOf(c.Meta); ix != nil {
			return c, c.Meta, ix
		}
		return nil, nil, nil
	}
	return nil, nil, nil
}

// indexOf finds the source's index in m: a TTL index by id, or for id 0
// the clustered collection's own TTL.
func (s *ttlSource) indexOf(m *catalog.CollMeta) *catalog.IndexMeta {
	if s.ixID == 0 {
		return m.ClusteredTTLIndex()
	}
	for _, ix := range m.Indexes {
		if ix.ID == s.ixID && ix.TTL && ix.TTLValid && len(ix.Fields) == 1 {
			return ix
		}
	}
	return nil
}

// dateRange returns the key range of the index's Date entries with dates at
// or before cutoff (Unix ms); all Date entries when all is set. For a
// descending index the range holds the same entries in reverse order.
func dateRange(ix *catalog.IndexMeta, cutoff int64, all bool) (lo, hi []byte, err error) {
	desc := ix.Fields[0].Desc
	p := ix.EntriesPrefix()
	tlo, err := keycodec.TypeLowerBound(bson.TypeDateTime, desc)
	if err != nil {
		return nil, nil, err
	}
	thi, err := keycodec.TypeUpperBound(bson.TypeDateTime, desc)
	if err != nil {
		return nil, nil, err
	}
	lo = append(append([]byte(nil), p...), tlo...)
	hi = append(append([]byte(nil), p...), thi...)
	if all {
		return lo, hi, nil
	}
	enc, err := keycodec.AppendValue(nil, bson.DateTime(cutoff), desc)
	if err != nil {
		return nil, nil, err
	}
	if desc {
		// Dates descend: those <= cutoff start at cutoff's encoding.
		lo = append(append([]byte(nil), p...), enc...)
	} else {
		hi = append(append([]byte(nil), p...), keycodec.PrefixEnd(enc)...)
	}
	return lo, hi, nil
}

// entryDate decodes the Date of a TTL index entry and its encoded _id.
func entryDate(ix *catalog.IndexMeta, key []byte) (int64, []byte, error) {
	rest := key[len(ix.EntriesPrefix()):]
	var vals []any
	var idEnc []byte
	if ix.ClusterColl != 0 {
		// A document key: the encoded _id is the whole rest.
		v, _, err := keycodec.DecodeValue(rest, false)
		if err != nil {
			return 0, nil, err
		}
		vals, idEnc = []any{v}, rest
	} else {
		var err error
		if vals, idEnc, err = ix.SplitEntry(rest); err != nil {
			return 0, nil, err
		}
	}
	d, ok := vals[0].(bson.DateTime)
	if !ok {
		return 0, nil, fmt.Errorf("docdb: TTL entry of type %T in the date range", vals[0])
	}
	return int64(d), idEnc, nil
}

// NextDue implements expiry.Source: the earliest Date entry plus
// expireAfterSeconds.
func (s *ttlSource) NextDue(ctx context.Context) (time.Time, bool, error) {
	_, meta, ix := s.current()
	if ix == nil {
		return time.Time{}, false, nil
	}
	if o, ok := timeseriesOptions(meta); ok && ix.ClusterColl != 0 {
		return s.bucketsNextDue(meta, ix, o)
	}
	lo, hi, err := dateRange(ix, 0, true)
	if err != nil {
		return time.Time{}, false, err
	}
	it, err := s.e.store.NewIter(lo, hi)
	if err != nil {
		return time.Time{}, false, err
	}
	defer it.Close()
	var ok bool
	if ix.Fields[0].Desc {
		ok = it.Last()
	} else {
		ok = it.First()
	}
	if !ok {
		return time.Time{}, false, it.Error()
	}
	date, _, err := entryDate(ix, it.Key())
	if err != nil {
		return time.Time{}, false, err
	}
	return time.UnixMilli(catalog.AddSeconds(date, ix.ExpireAfter)), true, nil
}

// dueEntries lists the encoded _ids of the documents with a Date entry due
// at or before now, earliest first, up to max (0: all), with their due
// times; more reports that entries were left. With after set, only entries
// past after (in the scan's direction) are read; last is the key of the
// last entry taken, from which a later call can go on.
func (s *ttlSource) dueEntries(ix *catalog.IndexMeta, now time.Time, max int, after []byte) (ids [][]byte, dues []int64, more bool, last []byte, err error) {
	cutoff := now.UnixMilli() - ix.ExpireAfter*1000
	lo, hi, err := dateRange(ix, cutoff, false)
	if err != nil {
		return nil, nil, false, nil, err
	}
	desc := ix.Fields[0].Desc
	if after != nil {
		if desc && bytes.Compare(after, hi) < 0 {
			hi = after // a descending scan runs from hi down
		} else if !desc {
			if next := append(append([]byte(nil), after...), 0); bytes.Compare(next, lo) > 0 {
				lo = next
			}
		}
	}
	if bytes.Compare(lo, hi) >= 0 {
		return nil, nil, false, nil, nil
	}
	it, err := s.e.store.NewIter(lo, hi)
	if err != nil {
		return nil, nil, false, nil, err
	}
	defer it.Close()
	step := it.Next
	ok := it.First()
	if desc {
		ok, step = it.Last(), it.Prev
	}
	var seen map[string]bool // only a multikey index has several entries per document
	if ix.Multikey {
		seen = map[string]bool{}
	}
	for ; ok; ok = step() {
		date, idEnc, err := entryDate(ix, it.Key())
		if err != nil {
			return nil, nil, false, nil, err
		}
		if seen[string(idEnc)] {
			continue // a multikey document: its earliest date came first
		}
		if max > 0 && len(ids) >= max {
			return ids, dues, true, last, nil
		}
		if seen != nil {
			seen[string(idEnc)] = true
		}
		ids = append(ids, append([]byte(nil), idEnc...))
		dues = append(dues, catalog.AddSeconds(date, ix.ExpireAfter))
		last = append(last[:0], it.Key()...)
	}
	return ids, dues, false, last, it.Error()
}

// resumePoint is where the previous batch of a pass stopped in the
// source's index.
type resumePoint struct {
	now  int64  // the pass's now (Unix ms)
	ixID uint64 // the index it refers to
	key  []byte // the last entry taken
}

// resumeFor returns the key to go on after for a batch of the pass at
// nowMs, or nil to start from the beginning of the due range.
//
// The engine calls ReapBatch once per storage batch with the now of the
// pass, so every batch of a pass but the first goes on where the previous one
// stopped instead of seeking from the start of the range: the entries
// before that point were all looked at in this pass, and the ones deleted
// are Pebble tombstones until a compaction, which a scan from the start
// would step over again in every batch (quadratic in the size of a
// storm). An entry written behind the point during the pass waits for
// the next pass, which starts over.
func (s *ttlSource) resumeFor(nowMs int64, ix *catalog.IndexMeta) []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.resume.now != nowMs || s.resume.ixID != ix.ID {
		return nil
	}
	return s.resume.key
}

func (s *ttlSource) setResume(nowMs int64, ix *catalog.IndexMeta, key []byte) {
	if key == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.resume = resumePoint{now: nowMs, ixID: ix.ID, key: key}
}

// ReapBatch implements expiry.Source: it deletes up to b.Max due
// documents under the collection's write lock, in one storage batch with
// all of their index entries. Every document is checked again before
// deletion (its date may have moved since it was indexed, or a partial
// filter may no longer match).
func (s *ttlSource) ReapBatch(ctx context.Context, now time.Time, b expiry.Batch) (expiry.Reaped, error) {
	if err := ctx.Err(); err != nil {
		return expiry.Reaped{}, err
	}
	return s.reapBatch(now, max(b.Max, 1), b)
}

// reapBatch deletes up to max due documents in one storage batch.
//
// The collection's write lock is what a steady stream of expiring inserts
// and the reaper compete for, and everything the reaper does while
// holding it (reading the index, decoding each document, computing its
// index entries) is time no insert can run. So the batch is prepared
// without the lock (prepareBatch) and only checked and committed under
// it: the check reads each document again with one iterator and compares
// its bytes with those the batch was built from, since every key the
// batch deletes follows from those bytes, the collection's metadata and
// its TTL policy index, which must be the same objects too. Anything else
// (a document changed or gone, an index added, the collection dropped)
// makes the batch be built again under the lock.
func (s *ttlSource) reapBatch(now time.Time, max int, b expiry.Batch) (r expiry.Reaped, err error) {
	c, meta, ix := s.current()
	if ix == nil {
		return r, nil
	}
	if ix.ClusterColl != 0 && s.e.spanReapable(meta) {
		return s.reapSpan(c, meta, now, b)
	}
	if _, ok := timeseriesOptions(meta); ok && ix.ClusterColl != 0 {
		return s.reapBuckets(c, now, max, b)
	}
	nowMs := now.UnixMilli()
	// Preparing reads the batch and builds its deletions without a lock,
	// so the engine may run it at low priority (expiry.Config.Idle).
	var p *reapPrep
	b.RunPrepare(func() { p, err = s.prepareBatch(c, meta, ix, now, max, s.resumeFor(nowMs, ix)) })
	if err != nil {
		return r, err
	}
	defer func() { p.close() }()
	if s.afterPrepare != nil {
		s.afterPrepare()
	}
	c.WriteMu.Lock()
	defer c.WriteMu.Unlock()
	if c.Dropped {
		return r, nil
	}
	ok, err := p.stillValid(s.e, c)
	if err != nil {
		return r, err
	}
	if !ok {
		// Re-read the index under the lock: collMod may have changed it.
		if ix = s.indexOf(c.Meta); ix == nil {
			return r, nil
		}
		p.close()
		if p, err = s.prepareBatch(c, c.Meta, ix, now, max, s.resumeFor(nowMs, ix)); err != nil {
			return r, err
		}
	}
	if len(p.dues) == 0 && p.last == nil {
		return r, nil
	}
	keys := 0
	for _, ic := range p.w.d.Idx {
		keys -= int(ic.Keys) // the _id index counts one key per document
	}
	if err := p.w.commit(); err != nil {
		return r, err
	}
	s.setResume(nowMs, p.ix, p.last)
	return expiry.Reaped{Items: len(p.dues), Keys: keys, Due: p.dues, Skipped: p.entries - len(p.dues), More: p.more}, nil
}

// reapPrep is a batch of TTL deletions built from what the store held when
// it was read: the documents' bytes, the metadata and policy index the
// keys were derived from, and the writer holding the deletions.
type reapPrep struct {
	meta *catalog.CollMeta
	ix   *catalog.IndexMeta
	pol  *policy.Index
	keys [][]byte // document keys deleted, ascending
	raws [][]byte // their bytes as read
	dues []int64
	// entries is the number of due index entries read; those beyond
	// len(dues) were left alone (the document changed or is gone).
	entries int
	more    bool
	last    []byte
	w       *writer
}

func (p *reapPrep) close() {
	if p != nil && p.w != nil {
		p.w.close()
	}
}

// prepareBatch builds the deletions of up to max documents of c due at or
// before now under index ix of metadata meta, going on after after. It
// reads the documents in key order with one iterator over the collection,
// so its seeks only move forward, and writes a plain batch: nothing reads
// it. It deletes document by document, not with range deletions: Pebble
// fragments a memtable's range tombstones again for every new iterator,
// foreground reads included, so a range deletion per batch slows every
// read.
func (s *ttlSource) prepareBatch(c *catalog.Collection, meta *catalog.CollMeta, ix *catalog.IndexMeta, now time.Time, max int, after []byte) (*reapPrep, error) {
	p := &reapPrep{meta: meta, ix: ix, pol: s.e.pol.IndexOf(meta.ID)}
	ids, _, more, last, err := s.dueEntries(ix, now, max, after)
	if err != nil || len(ids) == 0 {
		return p, err
	}
	p.more, p.last, p.entries = more, last, len(ids)
	p.keys = make([][]byte, 0, len(ids))
	p.raws = make([][]byte, 0, len(ids))
	p.dues = make([]int64, 0, len(ids))
	p.w = &writer{e: s.e, c: c, meta: meta, b: s.e.store.NewBatch()}
	slices.SortFunc(ids, bytes.Compare)
	pre := catalog.DocPrefix(meta.ID)
	it, err := s.e.store.NewIter(pre, storage.PrefixEnd(pre))
	if err != nil {
		return nil, errors.Join(err, p.w.b.Close())
	}
	defer it.Close()
	nowMs := now.UnixMilli()
	for _, idEnc := range ids {
		key := catalog.DocKey(meta.ID, idEnc)
		if !it.SeekGE(key) || !bytes.Equal(it.Key(), key) {
			if err := it.Error(); err != nil {
				p.close()
				return nil, err
			}
			continue
		}
		raw := append([]byte(nil), it.Value()...)
		sd, err := stored.NewFast(raw)
		if err != nil {
			p.close()
			return nil, fmt.Errorf("docdb: stored document: %w", err)
		}
		due, ok := ix.DueTime(sd.Doc)
		if !ok || due > nowMs {
			continue
		}
		if err := p.w.removeExpired(sd, change.Expiry{Source: change.SourceTTL, Name: ix.Name, DueAt: due}); err != nil {
			p.close()
			return nil, err
		}
		p.keys = append(p.keys, key)
		p.raws = append(p.raws, raw)
		p.dues = append(p.dues, due)
	}
	return p, nil
}

// stillValid reports whether the batch deletes exactly what it would if it
// were built now: c's metadata and TTL policy index are the ones it was
// built from, and every document it deletes still holds the bytes it read.
// The caller holds c's write lock.
func (p *reapPrep) stillValid(e *Engine, c *catalog.Collection) (bool, error) {
	if c.Meta != p.meta || e.pol.IndexOf(p.meta.ID) != p.pol {
		return false, nil
	}
	if len(p.keys) == 0 {
		return true, nil
	}
	pre := catalog.DocPrefix(p.meta.ID)
	it, err := e.store.NewIter(pre, storage.PrefixEnd(pre))
	if err != nil {
		return false, err
	}
	defer it.Close()
	for i, key := range p.keys {
		if !it.SeekGE(key) || !bytes.Equal(it.Key(), key) || !bytes.Equal(it.Value(), p.raws[i]) {
			return false, it.Error()
		}
	}
	return true, nil
}

// CountDue implements expiry.Counter: the documents due at or before now
// and the range of their due times.
func (s *ttlSource) CountDue(ctx context.Context, now time.Time) (int64, time.Time, time.Time, error) {
	c, meta, ix := s.current()
	if ix == nil {
		return 0, time.Time{}, time.Time{}, nil
	}
	if _, ok := timeseriesOptions(meta); ok && ix.ClusterColl != 0 {
		return s.bucketsCountDue(meta, now)
	}
	if ix.ClusterColl != 0 && spansKept(meta) {
		return s.spansCountDue(c, meta, now)
	}
	_, dues, _, _, err := s.dueEntries(ix, now, 0, nil)
	if err != nil || len(dues) == 0 {
		return 0, time.Time{}, time.Time{}, err
	}
	oldest, newest := dues[0], dues[0]
	for _, d := range dues {
		oldest = min(oldest, d)
		newest = max(newest, d)
	}
	return int64(len(dues)), time.UnixMilli(oldest), time.UnixMilli(newest), nil
}

// Source registration, following the catalog.

// registerTTL registers the sources of m's TTL indexes among idx.
func (e *Engine) registerTTL(m *catalog.CollMeta, idx []*catalog.IndexMeta) {
	if e.opts.Expiry == nil {
		return
	}
	for _, ix := range idx {
		if !ix.TTL || len(ix.Fields) != 1 || ix.IsID {
			continue
		}
		name := ttlSourceName(m, ix)
		e.srcMu.Lock()
		if _, ok := e.sources[ix.ID]; ok {
			e.srcMu.Unlock()
			continue
		}
		e.sources[ix.ID] = name
		e.srcMu.Unlock()
		if err := e.opts.Expiry.Register(&ttlSource{e: e, name: name, collID: m.ID, ixID: ix.ID}); err != nil {
			e.opts.Logger.Error("docdb: register TTL index source", "source", name, "err", err)
		}
	}
}

// clusteredKey is the sources-map key of a clustered collection's TTL.
func clusteredKey(collID uint64) uint64 { return collID | 1<<63 }

// registerClustered registers (or, when it has none, unregisters) the
// collection-level TTL source of m.
func (e *Engine) registerClustered(m *catalog.CollMeta) {
	if e.opts.Expiry == nil {
		return
	}
	key := clusteredKey(m.ID)
	e.srcMu.Lock()
	name, registered := e.sources[key]
	want := m.ClusteredTTLIndex() != nil
	newName := fmt.Sprintf("ttl_index:%s.%s.%s", m.DB, m.Name, catalog.IDIndexName)
	switch {
	case registered && (!want || name != newName):
		delete(e.sources, key)
	case !registered && want:
		e.sources[key] = newName
	}
	e.srcMu.Unlock()
	if registered && (!want || name != newName) {
		e.opts.Expiry.Unregister(name)
		registered = false
	}
	if want && !registered {
		if err := e.opts.Expiry.Register(&ttlSource{e: e, name: newName, collID: m.ID}); err != nil {
			e.opts.Logger.Error("docdb: register clustered TTL source", "source", newName, "err", err)
		}
	}
}

// unregisterClustered removes the collection-level TTL source of m.
func (e *Engine) unregisterClustered(m *catalog.CollMeta) {
	if e.opts.Expiry == nil {
		return
	}
	e.srcMu.Lock()
	name, ok := e.sources[clusteredKey(m.ID)]
	delete(e.sources, clusteredKey(m.ID))
	e.srcMu.Unlock()
	if ok {
		e.opts.Expiry.Unregister(name)
	}
}

// unregisterTTL removes the sources of idx.
func (e *Engine) unregisterTTL(idx []*catalog.IndexMeta) {
	if e.opts.Expiry == nil {
		return
	}
	for _, ix := range idx {
		e.srcMu.Lock()
		name, ok := e.sources[ix.ID]
		delete(e.sources, ix.ID)
		e.srcMu.Unlock()
		if ok {
			e.opts.Expiry.Unregister(name)
		}
	}
}

// registerAllTTL registers every TTL index of the catalog (at Open).
func (e *Engine) registerAllTTL() {
	e.mu.RLock()
	var metas []*catalog.CollMeta
	for _, c := range e.cat.Colls {
		metas = append(metas, c.Meta)
	}
	e.mu.RUnlock()
	for _, m := range metas {
		e.registerTTL(m, m.Indexes)
		e.registerClustered(m)
	}
}

func (e *Engine) unregisterAllSources() {
	e.mu.RLock()
	var all []*catalog.IndexMeta
	var metas []*catalog.CollMeta
	for _, c := range e.cat.Colls {
		all = append(all, c.Meta.Indexes...)
		metas = append(metas, c.Meta)
	}
	e.mu.RUnlock()
	e.unregisterTTL(all)
	for _, m := range metas {
		e.unregisterClustered(m)
	}
}

// collectionGone unregisters a dropped collection's sources.
func (e *Engine) collectionGone(m *catalog.CollMeta) {
	e.pol.CollectionGone(m)
	e.unregisterTTL(m.Indexes)
	e.unregisterClustered(m)
}

// collectionRenamed moves a renamed collection's sources to their new names.
func (e *Engine) collectionRenamed(old, renamed *catalog.CollMeta) {
	e.pol.CollectionRenamed(old, renamed)
	e.unregisterTTL(old.Indexes)
	e.registerTTL(renamed, renamed.Indexes)
	e.registerClustered(renamed)
}

// indexesAdded registers the sources of new TTL indexes.
func (e *Engine) indexesAdded(m *catalog.CollMeta, idx []*catalog.IndexMeta) { e.registerTTL(m, idx) }

// indexesDropped unregisters the sources of dropped indexes.
func (e *Engine) indexesDropped(_ *catalog.CollMeta, idx []*catalog.IndexMeta) { e.unregisterTTL(idx) }

// indexesChanged follows collMod: an index that became a TTL index gets a
// source, and the sweeper is woken because due times may now be earlier.
func (e *Engine) indexesChanged(m *catalog.CollMeta, idx []*catalog.IndexMeta) {
	e.registerTTL(m, idx)
	if e.opts.Expiry == nil {
		return
	}
	for _, ix := range idx {
		if !ix.TTL {
			continue
		}
		src := &ttlSource{e: e, collID: m.ID, ixID: ix.ID}
		if due, ok, err := src.NextDue(context.Background()); err == nil && ok {
			e.opts.Expiry.Wake(due)
		} else if err != nil && !errors.Is(err, storage.ErrClosed) {
			e.opts.Logger.Error("docdb: next due time after collMod", "err", err)
		}
	}
}
