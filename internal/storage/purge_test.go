package storage_test

import (
	"bytes"
	"context"
	"crypto/rand"
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

// waitGone waits (Pebble removes obsolete files in the background) until
// no file under dir holds any of the markers, and fails with the files
// that still do.
func waitGone(t *testing.T, dir string, markers [][]byte) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		var left []string
		for i, m := range markers {
			if f := filesHolding(t, dir, m); len(f) > 0 {
				left = append(left, fmt.Sprintf("marker %d in %v", i, f))
			}
		}
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("deleted bytes still on disk after the purge: %v", left)
		}
		time.Sleep(20 * time.Millisecond)
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
		if err == nil && !bytes.Equal(v, vals[i]) {
			t.Errorf("key %d = %x, want %x", i, v, vals[i])
		}
	}
	waitGone(t, dir, deleted)
	for i, m := range kept {
		if len(filesHolding(t, dir, m)) == 0 {
			t.Fatalf("live marker %d is not on disk after the purge", i)
		}
	}
	for i := range n {
		_, err := s.Get(key(i))
		gone := i%3 == 0 || (i >= 40 && i < 50)
		if gone != (err != nil) {
			t.Fatalf("key %d: Get error %v, want deleted=%v", i, err, gone)
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
	waitGone(t, dir, [][]byte{core})
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	s = openPurgeStore(t, dir, clock)
	defer s.Close()
	if st := s.PurgeStats(); st.PendingSpans != 0 || st.OldestPending != 0 {
		t.Fatalf("after a complete cycle and a restart: %+v, want nothing pending", st)
	}
}

// Ensure that the loop runs cycles by itself, off the injected clock: it
// does nothing while the clock stands still and purges once the clock
// passes half the bound.
func TestRunPurgeFollowsTheClock(t *testing.T) {
	clock := &fakeClock{now: time.Unix(1_700_000_000, 0)}
	s, err := storage.Open(storage.Options{Dir: "mem", InMemory: true, PurgeAfter: time.Second, Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.RunPurge(ctx) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("RunPurge: %v", err)
		}
	}()

	commit(t, s, func(b *storage.Batch) { b.Set([]byte{storage.PrefixRedisMeta, 'a'}, []byte("v")) })
	commit(t, s, func(b *storage.Batch) { b.Delete([]byte{storage.PrefixRedisMeta, 'a'}) })
	// Several poll intervals (50 ms each) pass with the clock standing still.
	time.Sleep(200 * time.Millisecond)
	if st := s.PurgeStats(); st.Cycles != 0 || st.PendingSpans != 1 {
		t.Fatalf("with the clock standing still: %+v, want no cycle", st)
	}
	clock.Advance(600 * time.Millisecond)
	deadline := time.Now().Add(5 * time.Second)
	for s.PurgeStats().Cycles == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("no cycle 5s after the clock passed half the bound: %+v", s.PurgeStats())
		}
		time.Sleep(10 * time.Millisecond)
	}
	if st := s.PurgeStats(); st.PendingSpans != 0 || st.OldestPending != 0 {
		t.Fatalf("after the cycle: %+v", st)
	}
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
