package expiry_test

import (
	"context"
	"encoding/binary"
	"sync"
	"testing"
	"time"

	"github.com/mayfly/mayfly/internal/expiry"
	"github.com/mayfly/mayfly/internal/storage"
)

// spanSource keeps its items in a store as groups: group g holds the keys
// 'g' [g u32] [i u32], one item per key, all due at dues[g]. A due group is
// reported as a Span, the way a time-series collection's buckets are; the
// source deletes nothing itself.
type spanSource struct {
	st   *storage.Store
	dues []int64 // due time (Unix ms) of each group
	size []int   // items of each group
	next int     // the first group not yet reported

	lock   lockCounter
	keysOf int // index keys per item
}

// lockCounter is a sync.Locker that counts its locks.
type lockCounter struct {
	mu    sync.Mutex
	locks int
}

func (l *lockCounter) Lock()   { l.mu.Lock(); l.locks++ }
func (l *lockCounter) Unlock() { l.mu.Unlock() }

func groupKey(g, i uint32) []byte {
	k := []byte{'g'}
	k = binary.BigEndian.AppendUint32(k, g)
	return binary.BigEndian.AppendUint32(k, i)
}

func groupSpan(g int) (start, end []byte) {
	return groupKey(uint32(g), 0), groupKey(uint32(g+1), 0)
}

func (s *spanSource) Name() string      { return "spans" }
func (s *spanSource) Kind() expiry.Kind { return expiry.KindTTLIndex }

func (s *spanSource) NextDue(context.Context) (time.Time, bool, error) {
	if s.next >= len(s.dues) {
		return time.Time{}, false, nil
	}
	return time.UnixMilli(s.dues[s.next]), true, nil
}

// ReapBatch reports the due groups as spans, as many as fit in b.Max items
// (at least one).
func (s *spanSource) ReapBatch(_ context.Context, now time.Time, b expiry.Batch) (expiry.Reaped, error) {
	var r expiry.Reaped
	items := 0
	for s.next < len(s.dues) && s.dues[s.next] <= now.UnixMilli() {
		n := s.size[s.next]
		if len(r.Spans) > 0 && items+n > b.Max {
			break
		}
		start, end := groupSpan(s.next)
		due := make([]int64, n)
		for i := range due {
			due[i] = s.dues[s.next]
		}
		r.Spans = append(r.Spans, expiry.Span{Store: s.st, Start: start, End: end, Lock: &s.lock, Due: due, Keys: n * s.keysOf})
		items += n
		s.next++
	}
	r.More = s.next < len(s.dues) && s.dues[s.next] <= now.UnixMilli()
	return r, nil
}

// CountDue counts the keys still stored in due groups.
func (s *spanSource) CountDue(_ context.Context, now time.Time) (int64, time.Time, time.Time, error) {
	var n int64
	var oldest, newest time.Time
	for g, due := range s.dues {
		if due > now.UnixMilli() {
			continue
		}
		start, end := groupSpan(g)
		it, err := s.st.NewIter(start, end)
		if err != nil {
			return 0, oldest, newest, err
		}
		for ok := it.First(); ok; ok = it.Next() {
			if n == 0 {
				oldest = time.UnixMilli(due)
			}
			newest = time.UnixMilli(due)
			n++
		}
		if err := it.Close(); err != nil {
			return 0, oldest, newest, err
		}
	}
	return n, oldest, newest, nil
}

// newSpanSource stores groups of the given sizes due at the given times.
func newSpanSource(t *testing.T, dues []int64, sizes []int) *spanSource {
	t.Helper()
	st, err := storage.Open(storage.Options{Dir: "mem", InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	b := st.NewBatch()
	defer b.Close()
	for g, n := range sizes {
		for i := range n {
			if err := b.Set(groupKey(uint32(g), uint32(i)), []byte("v")); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	return &spanSource{st: st, dues: dues, size: sizes, keysOf: 2}
}

func (s *spanSource) stored(t *testing.T) int {
	t.Helper()
	it, err := s.st.NewIter([]byte{'g'}, []byte{'h'})
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	n := 0
	for ok := it.First(); ok; ok = it.Next() {
		n++
	}
	return n
}

// Ensure that the engine deletes the spans a source reports with range
// deletions under the span's lock, counts each span's items, keys and lags
// exactly, leaves a zero backlog, and that the store's purge tracking
// records the deletions.
func TestSpanReap(t *testing.T) {
	t0 := time.UnixMilli(1_700_000_000_000)
	// Groups 0-2 are due (15, 25 and 50 items, 10s, 5s and 0s late), group
	// 3 (40 items) is not.
	src := newSpanSource(t, []int64{
		t0.Add(-10 * time.Second).UnixMilli(), t0.Add(-5 * time.Second).UnixMilli(),
		t0.UnixMilli(), t0.Add(time.Hour).UnixMilli(),
	}, []int{15, 25, 50, 40})
	cfg := expiry.DefaultConfig()
	cfg.Now = func() time.Time { return t0 }
	cfg.Backoff.Disabled = true
	cfg.Params.BatchSize = 40 // groups 0 and 1 fit in one batch, group 2 exceeds a batch alone
	e, err := expiry.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if err := e.Register(src); err != nil {
		t.Fatal(err)
	}
	e.PassForTest(t.Context())

	if n := src.stored(t); n != 40 {
		t.Errorf("%d keys left, want the 40 of the group not due", n)
	}
	st := e.Stats()
	ss, _ := st.Source("spans")
	if ss.DeletedItems != 90 || ss.DeletedKeys != 180 || ss.Reaps != 2 {
		t.Errorf("deleted %d items %d keys in %d batches, want 90, 180 in 2", ss.DeletedItems, ss.DeletedKeys, ss.Reaps)
	}
	if ss.Lag.Count != 90 {
		t.Errorf("%d lags recorded, want 90", ss.Lag.Count)
	}
	if want := 10 * time.Second; ss.Lag.Max != want {
		t.Errorf("lag max %v, want %v", ss.Lag.Max, want)
	}
	if !ss.BacklogKnown || ss.Backlog != 0 {
		t.Errorf("backlog %d (known %v), want 0", ss.Backlog, ss.BacklogKnown)
	}
	if src.lock.locks != 3 {
		t.Errorf("span lock taken %d times, want once per span (3)", src.lock.locks)
	}
	if ps := src.st.PurgeStats(); ps.PendingSpans == 0 {
		t.Errorf("purge tracking has no pending span after the range deletions")
	}
	if st.Stalls != 0 || st.Errors != 0 {
		t.Errorf("stalls %d errors %d, want none", st.Stalls, st.Errors)
	}
}

// Ensure that Drain deletes reported spans as the engine does and sums
// their items.
func TestDrainDeletesSpans(t *testing.T) {
	t0 := time.UnixMilli(1_700_000_000_000)
	src := newSpanSource(t, []int64{t0.UnixMilli() - 1, t0.UnixMilli(), t0.UnixMilli() + 1}, []int{3, 4, 5})
	r, err := expiry.Drain(t.Context(), src, t0, 0, 2)
	if err != nil {
		t.Fatal(err)
	}
	if r.Items != 7 || r.Keys != 14 || len(r.Due) != 7 || r.More {
		t.Errorf("Drain = %d items %d keys %d due times more %v, want 7, 14, 7, false", r.Items, r.Keys, len(r.Due), r.More)
	}
	if n := src.stored(t); n != 5 {
		t.Errorf("%d keys left, want 5", n)
	}
	if src.lock.locks != 2 {
		t.Errorf("span lock taken %d times, want 2", src.lock.locks)
	}
}
