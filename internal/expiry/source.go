package expiry

import (
	"context"
	"sync"
	"time"

	"github.com/mayfly/mayfly/internal/storage"
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
)

// Source is one time-ordered index of items that expire. The engine never
// reads the source's data: it asks when the next item is due and has the
// source reap one bounded batch at a time.
//
// Who calls: only the engine's sweeper goroutine calls NextDue and
// ReapBatch, one call at a time, holding no lock of the engine or of the
// source; the source takes the locks its writers take (a collection's
// write lock, the store's lock) inside the call. Clients write to the same
// data concurrently, so everything a call reads must be checked under
// those locks before it is deleted. The engine owns everything around a
// batch: the loop over batches, the budget of a visit (items and time),
// the rate limit, the pacing and the statistics.
//
// What one ReapBatch call must do: delete at most b.Max items whose due
// time is at or before now, earliest first, and return. Each item is
// deleted with its index entries in one storage batch; an item whose expiry
// was moved past now since it was indexed, and a stale index entry, are
// left alone or cleaned up (Reaped.Skipped), never reaped. The call reports
// in Reaped.More whether items due at or before now remain. All calls of
// one pass get the same now, so a source may go on where its previous call
// of that now stopped. A call that reports More must have made progress
// (Items, Skipped or Spans), or the engine holds the source back as
// stalled.
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

	// ReapBatch deletes one batch of at most b.Max items due at or before
	// now, as the Source documentation states.
	ReapBatch(ctx context.Context, now time.Time, b Batch) (Reaped, error)
}

// Batch is what the engine allows one Source.ReapBatch call.
type Batch struct {
	// Max is the most items the call may delete, counting those of
	// Reaped.Spans; it is at least 1. A single span may exceed it when it
	// is the call's only work, since a span is not split.
	Max int
	// Prepare, if set, runs f and returns when it has: the engine may run
	// it on another thread at idle priority (Config.Idle). A source calls
	// it, through RunPrepare, for the CPU-bound part of a batch that holds
	// no lock foreground requests wait for, such as reading the due items
	// and building the deletions; it then checks and commits them on the
	// calling thread, so a starved idle thread never holds a lock a
	// foreground request waits for.
	Prepare func(f func())
}

// RunPrepare runs f through b.Prepare, or directly when it is nil.
func (b Batch) RunPrepare(f func()) {
	if b.Prepare == nil {
		f()
		return
	}
	b.Prepare(f)
}

// Reaped reports what one Source.ReapBatch call did.
type Reaped struct {
	// Items is the number of items (documents, keys, fields) deleted.
	Items int
	// Keys is the number of index keys deleted with them (MongoDB's
	// metrics.ttl.deletedKeys); sources without secondary keys report Items.
	Keys int
	// Due holds the due time of every deleted item, in Unix milliseconds, so
	// the engine can record each deletion's lag.
	Due []int64
	// Skipped counts index entries the call examined without deleting an
	// item: an item whose expiry moved past now, a stale entry removed.
	Skipped int
	// Spans are key spans whose every item is due, which the source leaves
	// to the engine to delete, each with one range deletion. The engine adds
	// their items to Items, Keys and Due once they are deleted.
	Spans []Span
	// More is true when items due at or before now remain.
	More bool
}

// Span is a key span [Start, End) of Store whose every key belongs to an
// item due at or before the batch's now, with all of those items' index
// entries inside it. The engine deletes it with one range deletion in one
// storage batch, which the store's purge tracking records like any other
// deletion. The source must keep its writers out of the span (Lock, if
// set, is held while the deletion commits) and hold no cache of its keys.
// A range deletion costs every later iterator over its keys until a
// compaction drops it, so a span suits a large run of items (a whole
// bucket), not a batch's worth of scattered ones.
type Span struct {
	Store      *storage.Store
	Start, End []byte
	// Lock, if set, is held around the commit of the deletion.
	Lock sync.Locker
	// Due holds the due time (Unix ms) of every item in the span, one per
	// item: the span's item count is len(Due).
	Due []int64
	// Keys is the number of index keys the span holds.
	Keys int
	// Stage, if set, runs under Lock before the deletion is written, for a
	// source that can only know exactly what the span holds while its
	// writers are kept out: it sets sp.Due and sp.Keys (and may move sp.End
	// back) to what the span holds now, and adds the source's own
	// bookkeeping of the deletion (counters) to b. apply runs once b has
	// committed. A span left with no Due is not deleted.
	Stage func(b *storage.Batch, sp *Span) (apply func(), err error)
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
// deletes. The engine lets its batches grow while it is behind, up to
// CatchUpFactor times ttlDeleteBatchSize: after a batch that took every
// item it was allowed and whose earliest item was more than catchUpLag late the
// factor doubles, after any other batch it halves, down to 1; the back-off
// applies on top.
type CatchUp interface {
	CatchUpFactor() int
}
