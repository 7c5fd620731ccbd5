package docdb

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/storage"
)

// Dry runs (a mayfly extension: every TTL change can be previewed): collMod and
// createIndexes given dryRun: true validate the change exactly as the real
// command does, so a dry run of an invalid change fails with the same error,
// and then, instead of applying it, report what it would do to expiry:
//
//   - wouldExpire: the documents the change would expire at once, that is
//     documents no TTL rule of the collection expires now and that the
//     changed rules would (documents already expired are the sweeper's
//     backlog whatever the change, so they are not counted);
//   - oldestDue and newestDue: the range of those documents' due times
//     under the change (null when there are none);
//   - estimatedDeleteMillis: how long the sweeper would take to delete them
//     at its current measured rate (capped by ttlMaxDeletesPerSecond), from
//     the expiry engine's EstimateDuration; null when no rate is known yet;
//
// followed by the fields the real command would reply (for collMod
// expireAfterSeconds_old/_new, hidden_old/_new; for createIndexes
// numIndexesBefore/After, createdCollectionAutomatically, note). Nothing is
// written: a dry run of createIndexes on a missing collection does not
// create it.
//
// Cost. A collMod dry run reads only the candidates of the changed TTL
// rules: the Date entries of the changed index (or, for a clustered
// collection's own TTL, the Date _ids) up to the new cut-off, each document
// fetched once to apply the exact rule (partial filters, arrays, other TTL
// indexes). A createIndexes dry run scans the collection, as the index
// build would, and also reports the build's own failures (duplicate keys
// of a unique index, parallel arrays). Both read a storage snapshot taken
// with the collection's metadata and hold no lock while they scan.

// DurationEstimator is an optional interface of Options.Expiry: the expiry
// engine's estimate of how long deleting n items takes at its current rate
// (0 when it knows no rate yet). Dry runs use it when Options.Expiry
// implements it.
type DurationEstimator interface {
	EstimateDuration(n int64) time.Duration
}

// DryRun is the preview of a TTL change that dry runs report.
type DryRun struct {
	// At is the instant the preview refers to (Options.Now when it ran).
	At time.Time
	// WouldExpire is the number of documents the change would expire at
	// once: not expired at At under the current rules, expired under the
	// changed ones.
	WouldExpire int64
	// OldestDue and NewestDue are the earliest and latest due time of those
	// documents under the change; zero when WouldExpire is 0.
	OldestDue, NewestDue time.Time
	// EstimatedDelete is how long the sweeper would take to delete them at
	// its current rate; meaningful only when Estimated is set.
	EstimatedDelete time.Duration
	// Estimated is false when no deletion rate is known (nothing deleted
	// yet and no rate limit, or no expiry engine) and WouldExpire > 0.
	Estimated bool
}

// Fields returns the reply fields of a dry run, in order: dryRun: true,
// wouldExpire (int64), oldestDue and newestDue (Dates, or null when
// nothing would expire), estimatedDeleteMillis (int64, or null when no rate
// is known).
func (d DryRun) Fields() bson.D {
	var oldest, newest, est any = nil, nil, nil
	if d.WouldExpire > 0 {
		oldest, newest = bson.NewDateTimeFromTime(d.OldestDue), bson.NewDateTimeFromTime(d.NewestDue)
	}
	if d.Estimated {
		est = d.EstimatedDelete.Milliseconds()
	}
	return bson.D{
		{Key: "dryRun", Value: true},
		{Key: "wouldExpire", Value: d.WouldExpire},
		{Key: "oldestDue", Value: oldest},
		{Key: "newestDue", Value: newest},
		{Key: "estimatedDeleteMillis", Value: est},
	}
}

// preview accumulates a dry run: documents visible under cur and expired
// under next at nowMs.
type preview struct {
	cur, next      *collMeta
	nowMs          int64
	n              int64
	oldest, newest int64
}

func newPreview(cur, next *collMeta, now time.Time) *preview {
	return &preview{cur: cur, next: next, nowMs: now.UnixMilli()}
}

// add counts doc if the change expires it.
func (p *preview) add(doc bson.D) {
	if p.cur.expired(doc, p.nowMs) {
		return
	}
	due, ok := earliestDue(p.next, doc)
	if !ok || due > p.nowMs {
		return
	}
	if p.n == 0 || due < p.oldest {
		p.oldest = due
	}
	if p.n == 0 || due > p.newest {
		p.newest = due
	}
	p.n++
}

// earliestDue returns the earliest time a TTL rule of m expires doc.
func earliestDue(m *collMeta, doc bson.D) (due int64, ok bool) {
	for _, ix := range append(m.indexes[:len(m.indexes):len(m.indexes)], m.clusteredTTLIndex()) {
		if ix == nil {
			continue
		}
		if d, has := ix.dueTime(doc); has && (!ok || d < due) {
			due, ok = d, true
		}
	}
	return due, ok
}

// result turns the count into a DryRun with the engine's estimate.
func (e *Engine) dryRunResult(p *preview) DryRun {
	d := DryRun{At: time.UnixMilli(p.nowMs).UTC(), WouldExpire: p.n}
	if p.n == 0 {
		d.Estimated = true
		return d
	}
	d.OldestDue, d.NewestDue = time.UnixMilli(p.oldest).UTC(), time.UnixMilli(p.newest).UTC()
	if est, ok := e.opts.Expiry.(DurationEstimator); ok {
		if dur := est.EstimateDuration(p.n); dur > 0 {
			d.EstimatedDelete, d.Estimated = dur, true
		}
	}
	return d
}

// collModCandidates returns the TTL rules of next whose due times differ
// from cur's: the changed indexes that are (still) usable TTL indexes, and
// the clustered collection's own TTL when its value changed.
func collModCandidates(cur, next *collMeta, changed []*indexMeta) []*indexMeta {
	var out []*indexMeta
	for _, ix := range changed {
		if ix.ttl && ix.ttlValid && len(ix.fields) == 1 && !ix.isID {
			out = append(out, ix)
		}
	}
	was, now := cur.clusteredTTLIndex(), next.clusteredTTLIndex()
	if now != nil && (was == nil || was.expireAfter != now.expireAfter) {
		out = append(out, now)
	}
	return out
}

// collModDryRun previews a validated collMod on snap, a snapshot taken
// with cur: it reads the Date entries of each candidate rule up to its new
// cut-off and applies the exact rule to each document once.
func (e *Engine) collModDryRun(ctx context.Context, snap *storage.Snapshot, cur, next *collMeta, candidates []*indexMeta, now time.Time) (DryRun, error) {
	p := newPreview(cur, next, now)
	seen := map[string]struct{}{}
	for _, ix := range candidates {
		cutoff := p.nowMs - ix.expireAfter*1000
		lo, hi, err := dateRange(ix, cutoff, false)
		if err != nil {
			return DryRun{}, err
		}
		if err := e.previewRange(ctx, snap, cur, ix, lo, hi, seen, p); err != nil {
			return DryRun{}, err
		}
	}
	return e.dryRunResult(p), nil
}

// previewRange adds the documents of the entries of ix in [lo, hi) to p.
func (e *Engine) previewRange(ctx context.Context, snap *storage.Snapshot, cur *collMeta, ix *indexMeta, lo, hi []byte, seen map[string]struct{}, p *preview) error {
	it, err := snap.NewIter(lo, hi)
	if err != nil {
		return err
	}
	defer it.Close()
	for ok := it.First(); ok; ok = it.Next() {
		if err := ctx.Err(); err != nil {
			return err
		}
		_, idEnc, err := entryDate(ix, it.Key())
		if err != nil {
			return err
		}
		if _, dup := seen[string(idEnc)]; dup {
			continue
		}
		seen[string(idEnc)] = struct{}{}
		var raw []byte
		if ix.clusterColl != 0 {
			raw = append([]byte(nil), it.Value()...)
		} else if raw, err = snap.Get(docKey(cur.id, idEnc)); errors.Is(err, storage.ErrNotFound) {
			continue
		} else if err != nil {
			return err
		}
		sd, err := newStoredDoc(raw)
		if err != nil {
			return fmt.Errorf("docdb: stored document: %w", err)
		}
		p.add(sd.doc)
	}
	return it.Error()
}

// CreateIndexesDryRun is createIndexes with dryRun: true: it fails exactly
// as CreateIndexes would (67, 85, 86, and 11000 or 171 for a build that
// would fail), and otherwise returns what CreateIndexes would reply and the
// preview of the new TTL indexes, changing nothing (a missing collection is
// not created; the result says it would be). CollMod takes
// CollModRequest.DryRun and returns the preview's Fields before its own.
func (e *Engine) CreateIndexesDryRun(ctx context.Context, db, coll string, specs []IndexSpec) (CreateIndexesResult, DryRun, error) {
	return e.createIndexesDryRun(ctx, db, coll, specs)
}

// createIndexesDryRun checks specs exactly as createIndexes does,
// simulates the build over a snapshot of the collection (reporting the
// build's failures) and previews the new TTL indexes, writing nothing.
func (e *Engine) createIndexesDryRun(ctx context.Context, db, coll string, specs []IndexSpec) (CreateIndexesResult, DryRun, error) {
	var res CreateIndexesResult
	if err := checkWriteNS(db, coll); err != nil {
		return res, DryRun{}, err
	}
	reqs := make([]*indexRequest, len(specs))
	for i, s := range specs {
		reqs[i] = s.request()
	}
	view := e.openRead(db, coll)
	defer view.close()
	now := e.opts.Now()
	meta := view.meta
	if meta == nil {
		// The real command would create the collection with its _id_ index.
		id, err := indexFromSpec(0, idIndexSpec())
		if err != nil {
			return res, DryRun{}, err
		}
		meta = &collMeta{db: db, name: coll, options: bson.D{}, indexes: []*indexMeta{id}}
		res.CreatedCollectionAutomatically = true
	}
	res.NumIndexesBefore = len(meta.indexes)
	build, err := indexesToBuild(meta, reqs)
	if err != nil {
		return res, DryRun{}, err
	}
	res.NumIndexesAfter = res.NumIndexesBefore + len(build)
	if len(build) == 0 {
		res.Note = "all indexes already exist"
		return res, e.dryRunResult(newPreview(meta, meta, now)), nil
	}
	newIdx := make([]*indexMeta, len(build))
	for i, r := range build {
		ix, err := indexFromSpec(0, r.spec)
		if err != nil {
			return res, DryRun{}, err
		}
		newIdx[i] = ix
	}
	next := meta.withIndexes(append(append([]*indexMeta(nil), meta.indexes...), newIdx...))
	p := newPreview(meta, next, now)
	if view.meta != nil {
		if err := e.simulateBuild(ctx, view.snap, meta, newIdx, p); err != nil {
			return res, DryRun{}, err
		}
	}
	return res, e.dryRunResult(p), nil
}

// simulateBuild reads every document of meta in snap as buildIndexes
// would, failing where the build would fail (keys that cannot be indexed,
// a duplicate in a new unique index between two documents visible at the
// start, as buildUniqueCheck decides), and adds each document to p.
func (e *Engine) simulateBuild(ctx context.Context, snap *storage.Snapshot, meta *collMeta, newIdx []*indexMeta, p *preview) error {
	vis := e.newVisibility(meta)
	vis.nowMs = p.nowMs
	held := make([]map[string]struct{}, len(newIdx))
	for i, ix := range newIdx {
		if ix.unique {
			held[i] = map[string]struct{}{}
		}
	}
	pre := docPrefix(meta.id)
	it, err := snap.NewIter(pre, storage.PrefixEnd(pre))
	if err != nil {
		return err
	}
	defer it.Close()
	for ok := it.First(); ok; ok = it.Next() {
		if err := ctx.Err(); err != nil {
			return err
		}
		sd, err := newStoredDoc(append([]byte(nil), it.Value()...))
		if err != nil {
			return fmt.Errorf("docdb: stored document: %w", err)
		}
		hidden := vis.hides(sd.doc)
		for i, ix := range newIdx {
			keys, _, err := ix.indexKeys(sd.doc)
			if err != nil {
				return buildFailed(meta, err)
			}
			if held[i] == nil || hidden {
				continue
			}
			for _, k := range keys {
				if _, dup := held[i][string(k.enc)]; dup {
					return buildFailed(meta, dupKeyError(meta, ix, toKeyDoc(ix, k.values)))
				}
				held[i][string(k.enc)] = struct{}{}
			}
		}
		p.add(sd.doc)
	}
	return it.Error()
}
