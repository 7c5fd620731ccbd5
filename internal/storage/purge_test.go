package storage_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/mayfly/mayfly/internal/storage"
)

// fakeClock is a clock that moves only when told to.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

func openPurgeStore(t *testing.T, dir string, clock *fakeClock) *storage.Store {
	t.Helper()
	s, err := storage.Open(storage.Options{Dir: dir, PurgeAfter: time.Minute, Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// marker returns a value of 40 random bytes and the 24 bytes in its middle
// that a byte-wise grep looks for. Random bytes do not compress, so an
// sstable block holds the middle verbatim; the ends are padding, because a
// compressor may fold a value's first or last bytes into a copy of the
// entry framing around it.
func marker(t *testing.T) (value, core []byte) {
	t.Helper()
	v := make([]byte, 40)
	if _, err := rand.Read(v); err != nil {
		t.Fatal(err)
	}
	return v, v[8:32]
}

// filesHolding returns the files under dir that contain m.
func filesHolding(t *testing.T, dir string, m []byte) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if os.IsNotExist(err) {
				return nil // removed while we walked
			}
			return err
		}
		if d.IsDir() {
			return nil
		}
		b, err := os.ReadFile(path)
		if os.IsNotExist(err) {
			return nil
		}
		if err != nil {
			return err
		}
		if bytes.Contains(b, m) {
			out = append(out, filepath.Base(path))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// assertGone fails with the files under dir that still hold any of the
// markers. The store must be closed: Pebble removes obsolete files in the
// background, and Close waits for those removals, so the grep needs no
// polling.
func assertGone(t *testing.T, dir string, markers [][]byte) {
	t.Helper()
	var left []string
	for i, m := range markers {
		if f := filesHolding(t, dir, m); len(f) > 0 {
			left = append(left, fmt.Sprintf("marker %d in %v", i, f))
		}
	}
	if len(left) > 0 {
		t.Fatalf("deleted bytes still on disk after the purge: %v", left)
	}
}

// fakeAfter stands in for time.After (Options.After): every wait asked
// for is announced on asked, and returns when the test fires it.
type fakeAfter struct {
	asked chan time.Duration
	fire  chan time.Time
}

func newFakeAfter() *fakeAfter {
	return &fakeAfter{asked: make(chan time.Duration), fire: make(chan time.Time)}
}

func (f *fakeAfter) After(d time.Duration) <-chan time.Time {
	f.asked <- d
	return f.fire
}

// next waits for the loop to ask for its next wait and returns its length.
func (f *fakeAfter) next(t *testing.T) time.Duration {
	t.Helper()
	select {
	case d := <-f.asked:
		return d
	case <-t.Context().Done():
		t.Fatal("the loop asked for no wait")
		return 0
	}
}

// Ensure that a purge cycle erases the bytes of point- and range-deleted
// values from every file of the data directory (write-ahead logs included:
// a flushed log must be removed, not recycled), keeps the live values, and
// runs only once the oldest deletion is half the bound old by the store's
// clock.
func TestPurgeErasesDeletedBytes(t *testing.T) {
	dir := t.TempDir()
	clock := &fakeClock{now: time.Unix(1_700_000_000, 0)}
	s := openPurgeStore(t, dir, clock)
	defer s.Close()

	const n = 60
	vals := make([][]byte, n)
	cores := make([][]byte, n)
	key := func(i int) []byte { return storage.Key(storage.PrefixRedisMeta, fmt.Appendf(nil, "k%03d", i)) }
	// Half the values reach an sstable, half stay in the log and memtable.
	for i := range n {
		vals[i], cores[i] = marker(t)
		commit(t, s, func(b *storage.Batch) { b.Set(key(i), vals[i]) })
		if i == n/2 {
			if err := s.Flush(); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, i := range []int{0, 1, n/2 - 1} {
		if len(filesHolding(t, dir, cores[i])) == 0 {
			t.Fatalf("marker %d not found on disk before the purge: the grep cannot judge", i)
		}
	}

	var deleted, kept [][]byte
	commit(t, s, func(b *storage.Batch) {
		for i := 0; i < n; i += 3 {
			b.Delete(key(i))
		}
		b.DeleteRange(key(40), key(50))
	})
	for i := range n {
		if i%3 == 0 || (i >= 40 && i < 50) {
			deleted = append(deleted, cores[i])
		} else {
			kept = append(kept, cores[i])
		}
	}

	st := s.PurgeStats()
	if st.PendingSpans != 1 || st.OldestPending != 0 || st.After != time.Minute {
		t.Fatalf("after the deletes: %+v, want one pending span of age 0 and a bound of 1m", st)
	}
	clock.Advance(29 * time.Second)
	if ran, err := s.PurgeDue(context.Background()); ran || err != nil {
		t.Fatalf("PurgeDue before half the bound = %v, %v; want no cycle", ran, err)
	}
	if got := s.Metrics().Purge.OldestPending; got != 29*time.Second {
		t.Fatalf("oldest pending age = %s, want 29s", got)
	}
	clock.Advance(time.Second)
	if ran, err := s.PurgeDue(context.Background()); !ran || err != nil {
		t.Fatalf("PurgeDue at half the bound = %v, %v; want a cycle", ran, err)
	}
	st = s.PurgeStats()
	if st.PendingSpans != 0 || st.OldestPending != 0 || st.Cycles != 1 || st.CompactedSpans != 1 {
		t.Fatalf("after the cycle: %+v", st)
	}
	for i := range n {
		v, err := s.Get(key(i))
		gone := i%3 == 0 || (i >= 40 && i < 50)
		if gone != (err != nil) {
			t.Fatalf("key %d: Get error %v, want deleted=%v", i, err, gone)
		}
		if err == nil && !bytes.Equal(v, vals[i]) {
			t.Errorf("key %d = %x, want %x", i, v, vals[i])
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	assertGone(t, dir, deleted)
	for i, m := range kept {
		if len(filesHolding(t, dir, m)) == 0 {
			t.Fatalf("live marker %d is not on disk after the purge", i)
		}
	}
}

// Ensure that deletions a store did not purge before it stopped are purged
// after it reopens: the marker record written with the first delete batch
// makes the reopened store schedule its whole keyspace from the time of
// that deletion, and a cycle that leaves nothing pending removes it.
func TestPurgePendingSurvivesRestart(t *testing.T) {
	dir := t.TempDir()
	clock := &fakeClock{now: time.Unix(1_700_000_000, 0)}
	s := openPurgeStore(t, dir, clock)
	m, core := marker(t)
	k := storage.Key(storage.PrefixDocument, []byte("doc"))
	commit(t, s, func(b *storage.Batch) { b.Set(k, m) })
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	commit(t, s, func(b *storage.Batch) { b.Delete(k) })
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	clock.Advance(10 * time.Second)
	s = openPurgeStore(t, dir, clock)
	st := s.PurgeStats()
	if st.PendingSpans != 1 || st.OldestPending != 10*time.Second {
		s.Close()
		t.Fatalf("reopened: %+v, want the whole keyspace pending for 10s", st)
	}
	clock.Advance(20 * time.Second)
	if ran, err := s.PurgeDue(context.Background()); !ran || err != nil {
		s.Close()
		t.Fatalf("PurgeDue = %v, %v", ran, err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	assertGone(t, dir, [][]byte{core})

	s = openPurgeStore(t, dir, clock)
	defer s.Close()
	if st := s.PurgeStats(); st.PendingSpans != 0 || st.OldestPending != 0 {
		t.Fatalf("after a complete cycle and a restart: %+v, want nothing pending", st)
	}
}

// Ensure that the loop runs cycles by itself, off the injected clock and
// timer: it waits one poll interval between checks, does nothing while the
// clock stands still, purges once the clock passes half the bound, and
// stops when its context ends.
func TestRunPurgeFollowsTheClock(t *testing.T) {
	clock := &fakeClock{now: time.Unix(1_700_000_000, 0)}
	after := newFakeAfter()
	s, err := storage.Open(storage.Options{Dir: "mem", InMemory: true, PurgeAfter: time.Second, Now: clock.Now, After: after.After})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.RunPurge(ctx) }()

	commit(t, s, func(b *storage.Batch) { b.Set([]byte{storage.PrefixRedisMeta, 'a'}, []byte("v")) })
	commit(t, s, func(b *storage.Batch) { b.Delete([]byte{storage.PrefixRedisMeta, 'a'}) })
	// The loop asks for its next wait only once the check the last one
	// led to is over, so each answer below follows a complete check.
	if d := after.next(t); d != 50*time.Millisecond {
		t.Fatalf("poll interval %s for a bound of 1s, want 50ms", d)
	}
	for range 4 {
		after.fire <- time.Time{}
		after.next(t)
	}
	if st := s.PurgeStats(); st.Cycles != 0 || st.PendingSpans != 1 {
		t.Fatalf("with the clock standing still: %+v, want no cycle", st)
	}
	clock.Advance(600 * time.Millisecond)
	after.fire <- time.Time{}
	after.next(t)
	if st := s.PurgeStats(); st.Cycles != 1 || st.PendingSpans != 0 || st.OldestPending != 0 {
		t.Fatalf("after the clock passed half the bound: %+v, want one cycle and nothing pending", st)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("RunPurge: %v", err)
	}
}

// Ensure that the poll interval is a twentieth of the bound within
// [50 ms, 1 s].
func TestRunPurgePollInterval(t *testing.T) {
	tests := []struct{ bound, want time.Duration }{
		{time.Second, 50 * time.Millisecond},
		{10 * time.Second, 500 * time.Millisecond},
		{time.Minute, time.Second},
		{storage.DefaultPurgeAfter, time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.bound.String(), func(t *testing.T) {
			after := newFakeAfter()
			s, err := storage.Open(storage.Options{Dir: "mem", InMemory: true, PurgeAfter: tt.bound, After: after.After})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() { done <- s.RunPurge(ctx) }()
			if d := after.next(t); d != tt.want {
				t.Errorf("poll interval %s, want %s", d, tt.want)
			}
			cancel()
			if err := <-done; err != nil {
				t.Fatalf("RunPurge: %v", err)
			}
		})
	}
}

// deleteInSpans commits one delete batch per keyspace prefix, so that the
// store has that many pending spans.
func deleteInSpans(t *testing.T, s *storage.Store, prefixes ...byte) {
	t.Helper()
	for _, p := range prefixes {
		k := storage.Key(p, []byte("k"))
		commit(t, s, func(b *storage.Batch) { b.Set(k, []byte("v")) })
		commit(t, s, func(b *storage.Batch) { b.Delete(k) })
	}
}

// Ensure that a cycle rests between its compactions through the injected
// timer, once per compaction but the last, and that a cycle cancelled
// while it rests keeps the spans it did not compact pending and counts a
// failure.
func TestPurgePacesCompactions(t *testing.T) {
	prefixes := []byte{storage.PrefixDocument, storage.PrefixIndex, storage.PrefixRedisMeta}
	t.Run("rests", func(t *testing.T) {
		var rests []time.Duration
		fired := make(chan time.Time, 1)
		after := func(d time.Duration) <-chan time.Time {
			rests = append(rests, d)
			fired <- time.Time{}
			return fired
		}
		s, err := storage.Open(storage.Options{Dir: "mem", InMemory: true, After: after})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		deleteInSpans(t, s, prefixes...)
		if st := s.PurgeStats(); st.PendingSpans != len(prefixes) {
			t.Fatalf("%d spans pending, want %d", st.PendingSpans, len(prefixes))
		}
		if err := s.Purge(context.Background()); err != nil {
			t.Fatal(err)
		}
		if len(rests) != len(prefixes)-1 {
			t.Fatalf("rested %d times (%v), want %d", len(rests), rests, len(prefixes)-1)
		}
		for _, d := range rests {
			if d < 0 {
				t.Fatalf("negative rest %s", d)
			}
		}
		if st := s.PurgeStats(); st.PendingSpans != 0 || st.CompactedSpans != int64(len(prefixes)) || st.Cycles != 1 || st.Failures != 0 {
			t.Fatalf("after the cycle: %+v", st)
		}
	})
	t.Run("cancelled while resting", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		after := func(time.Duration) <-chan time.Time {
			cancel()
			return nil // never fires
		}
		s, err := storage.Open(storage.Options{Dir: "mem", InMemory: true, After: after})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		deleteInSpans(t, s, prefixes...)
		if err := s.Purge(ctx); !errors.Is(err, context.Canceled) {
			t.Fatalf("Purge = %v, want context.Canceled", err)
		}
		st := s.PurgeStats()
		if st.CompactedSpans != 1 || st.PendingSpans != len(prefixes)-1 || st.Failures != 1 || st.Cycles != 0 {
			t.Fatalf("after the cancelled cycle: %+v, want 1 span compacted, the others pending and a failure", st)
		}
	})
}

// Ensure that batches without deletes are not tracked and negative bounds
// are refused.
func TestPurgeTracksOnlyDeletes(t *testing.T) {
	s := openMem(t)
	commit(t, s, func(b *storage.Batch) { b.Set([]byte{storage.PrefixDocument, 1}, []byte("v")) })
	if st := s.PurgeStats(); st.PendingSpans != 0 || st.After != storage.DefaultPurgeAfter {
		t.Fatalf("after a write: %+v, want nothing pending and the default bound", st)
	}
	if _, err := storage.Open(storage.Options{Dir: "mem", InMemory: true, PurgeAfter: -time.Second}); err == nil {
		t.Fatal("Open accepted a negative purge bound")
	}
}
