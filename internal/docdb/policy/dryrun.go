package policy

import (
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/catalog"
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

// Preview accumulates a dry run: documents visible under cur and expired
// under next at nowMs.
type Preview struct {
	cur, next      *catalog.CollMeta
	NowMs          int64
	n              int64
	oldest, newest int64
}

func NewPreview(cur, next *catalog.CollMeta, now time.Time) *Preview {
	return &Preview{cur: cur, next: next, NowMs: now.UnixMilli()}
}

// Add counts doc if the change expires it.
func (p *Preview) Add(doc bson.D) {
	if p.cur.Expired(doc, p.NowMs) {
		return
	}
	due, ok := earliestDue(p.next, doc)
	if !ok || due > p.NowMs {
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
func earliestDue(m *catalog.CollMeta, doc bson.D) (due int64, ok bool) {
	for _, ix := range append(m.Indexes[:len(m.Indexes):len(m.Indexes)], m.ClusteredTTLIndex()) {
		if ix == nil {
			continue
		}
		if d, has := ix.DueTime(doc); has && (!ok || d < due) {
			due, ok = d, true
		}
	}
	return due, ok
}

// Result turns the count into a DryRun with the expiry engine's estimate
// (reg may be nil).
func (p *Preview) Result(reg Registry) DryRun {
	d := DryRun{At: time.UnixMilli(p.NowMs).UTC(), WouldExpire: p.n}
	if p.n == 0 {
		d.Estimated = true
		return d
	}
	d.OldestDue, d.NewestDue = time.UnixMilli(p.oldest).UTC(), time.UnixMilli(p.newest).UTC()
	if est, ok := reg.(DurationEstimator); ok {
		if dur := est.EstimateDuration(p.n); dur > 0 {
			d.EstimatedDelete, d.Estimated = dur, true
		}
	}
	return d
}
