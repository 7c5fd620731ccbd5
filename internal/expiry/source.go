package expiry

import (
	"context"
	"time"
)

// Kind groups sources for metrics: MongoDB's metrics.ttl counts the
// document kinds, Redis's INFO counts the key kinds.
type Kind string

// The kinds of source the server registers.
const (
	KindTTLIndex   Kind = "ttl_index"   // a MongoDB TTL index
	KindPolicy     Kind = "policy"      // a Firestore-style TTL policy on a collection group
	KindRedisKeys  Kind = "redis_keys"  // the keys of one Redis logical database
	KindRedisField Kind = "redis_field" // the expiring hash fields of one Redis logical database
	KindTimeSeries Kind = "timeseries"  // the buckets of a time series or clustered collection with expireAfterSeconds
)

// Source is one time-ordered index of items that expire. The engine never
// reads or writes the source's data itself: it asks the source when its next
// item is due and tells it to reap what is due.
//
// Implementations must be safe for concurrent use: Reap runs on the sweeper's
// goroutine while clients write to the same data.
type Source interface {
	// Name identifies the source in metrics and logs, for example
	// "ttl_index:app.sessions.createdAt_1" or "redis_keys:db0". It must be
	// unique among registered sources and stable across restarts.
	Name() string

	// Kind says which family the source belongs to.
	Kind() Kind

	// NextDue returns the due time of the earliest item still present in the
	// source; ok is false when the source holds nothing that can expire.
	NextDue(ctx context.Context) (due time.Time, ok bool, err error)

	// Reap deletes items whose due time is at or before now, earliest first,
	// until nothing due is left or the budget is spent. Each item is deleted
	// with its index entries in one storage batch, and an item whose expiry
	// was moved past now since it was indexed is left alone.
	Reap(ctx context.Context, now time.Time, budget Budget) (Reaped, error)
}

// Budget bounds one call to Source.Reap.
//
// The engine calls Reap once per storage batch: it passes MaxItems equal to
// BatchSize (at most ttlDeleteBatchSize, less under the rate limit or
// back-off) and a Deadline that has not yet passed (or none), so every call
// can make progress. A source may still honour all three fields in general.
type Budget struct {
	// MaxItems is the most items to delete; 0 means no limit.
	MaxItems int
	// Deadline is the time after which Reap stops at the next batch
	// boundary; the zero time means no limit.
	Deadline time.Time
	// BatchSize is the most items deleted in one storage batch.
	BatchSize int
	// Prepare, if set, runs f and returns when it has: the engine may run
	// it on another thread at idle priority (Config.Idle). Sources call it,
	// through RunPrepare, for the CPU-bound part of a batch that holds no
	// lock foreground requests wait for, such as reading the due items and
	// building the deletions; the commit stays on the caller's thread, so
	// a starved idle thread never holds up a foreground request.
	Prepare func(f func())
}

// RunPrepare runs f through b.Prepare, or directly when it is nil.
func (b Budget) RunPrepare(f func()) {
	if b.Prepare == nil {
		f()
		return
	}
	b.Prepare(f)
}

// Reaped reports what one call to Source.Reap did.
type Reaped struct {
	// Items is the number of items (documents, keys, fields) deleted.
	Items int
	// Keys is the number of index keys deleted with them (MongoDB's
	// metrics.ttl.deletedKeys); sources without secondary keys report Items.
	Keys int
	// Due holds the due time of every deleted item, in Unix milliseconds, so
	// the engine can record each deletion's lag.
	Due []int64
	// More is true when due items remain because the budget ran out.
	More bool
}

// Counter is an optional interface of a Source that can count its items due
// at or before now, for the backlog gauge and for dry runs.
type Counter interface {
	// CountDue returns how many items are due at or before now and the range
	// of their due times.
	CountDue(ctx context.Context, now time.Time) (n int64, oldest, newest time.Time, err error)
}

// CatchUp is an optional interface of a Source whose every batch waits its
// turn for a lock that foreground writers take in turn too (a MongoDB
// collection's write lock). Each writer's turn adds its whole request, so
// against a steady stream of inserts from many connections such a source
// falls further behind at every turn with a fixed batch, however fast it
// deletes. The engine lets its batches grow while it is behind (see
// Catch-up in the package documentation), up to CatchUpFactor times
// ttlDeleteBatchSize.
type CatchUp interface {
	CatchUpFactor() int
}
