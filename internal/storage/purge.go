package storage

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"sync"
	"time"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/vfs"
)

// Bounded physical purge: after an item is deleted,
// its bytes leave every file of the data directory within Options.PurgeAfter.
//
// The tracker notes, for every committed batch that deletes something, the
// commit time and the key spans it touched (one span per keyspace prefix of
// the batch). A purge cycle takes every pending span, flushes the memtable
// (which retires the write-ahead logs holding the deleted values; WAL
// recycling is off, so retired logs are removed, not reused) and compacts
// each span to the bottom level, where the tombstones erase the data and
// are themselves dropped. The loop (RunPurge) starts a cycle once the
// oldest pending deletion is half the bound old, leaving the other half for
// the work, and paces the compactions so that they take at most a fixed
// share of the time.
//
// The pending set is in memory, so a crash would forget it. To keep the
// bound across crashes, the first delete batch after a cycle is preceded by
// a marker file (PurgePendingFile) holding the time of the oldest pending
// deletion, written and fsynced before the batch commits; a cycle that
// leaves nothing pending removes it. Open finds a marker left by a crash
// and schedules the whole keyspace for purging from the marker's time. The
// marker costs one fsync per cycle, not one per delete, and stays out of
// the keyspace that readers iterate.

// PurgePendingFile is the marker file in the data directory: the oldest
// pending deletion, as big-endian Unix nanoseconds of the store's clock.
const PurgePendingFile = "mayfly-purge-pending"

// maxPurgeSpans bounds the pending set: past it the two neighbouring spans
// with the longest common prefix are merged into one.
const maxPurgeSpans = 64

// purgeDutyCycle is the largest share of wall time the purge compactions
// may take: after each compaction the loop rests so that work stays at or
// below this share.
const purgeDutyCycle = 0.5

// PurgeStats describe the physical purge, for metrics and serverStatus.
type PurgeStats struct {
	// After is the purge bound (Options.PurgeAfter).
	After time.Duration
	// OldestPending is the age of the oldest deletion whose bytes may still
	// be in a file of the data directory; zero when there is none.
	OldestPending time.Duration
	// PendingSpans is the number of key spans waiting for a purge cycle.
	PendingSpans int
	// Cycles counts purge cycles completed since open.
	Cycles int64
	// Failures counts purge cycles that failed (they are retried).
	Failures int64
	// LastCycle is how long the last completed cycle took, pauses included.
	LastCycle time.Duration
	// CompactedSpans counts the spans compacted since open.
	CompactedSpans int64
}

// purgeSpan is a key span [start, end) with deleted data in it.
type purgeSpan struct {
	start, end []byte
}

// purgeTracker is the set of deleted-but-not-purged spans.
type purgeTracker struct {
	now   func() time.Time
	after time.Duration
	fs    vfs.FS
	dir   string

	mu       sync.Mutex
	spans    []purgeSpan // pending, sorted by start, disjoint
	oldest   time.Time   // oldest pending deletion; zero when spans is empty
	cycling  time.Time   // oldest deletion of the cycle in progress; zero when none
	inflight int         // delete batches being committed
	marker   bool        // the marker file exists
	stats    PurgeStats
}

func newPurgeTracker(now func() time.Time, after time.Duration, fs vfs.FS, dir string) *purgeTracker {
	return &purgeTracker{now: now, after: after, fs: fs, dir: dir}
}

// load reads the marker a previous run left: if there is one, that run
// had deletions it did not purge, and since the spans are not known the
// whole keyspace is scheduled from the marker's time.
func (t *purgeTracker) load() error {
	f, err := t.fs.Open(t.fs.PathJoin(t.dir, PurgePendingFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("storage: read purge marker: %w", err)
	}
	defer f.Close()
	var buf [8]byte
	since := t.now()
	if n, _ := io.ReadFull(f, buf[:]); n == 8 {
		since = time.Unix(0, int64(binary.BigEndian.Uint64(buf[:])))
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.marker = true
	t.addLocked([]purgeSpan{wholeKeyspace()}, since)
	return nil
}

// writeMarker writes the marker file durably: a temporary file, fsynced,
// renamed over the marker, and the directory fsynced.
func (t *purgeTracker) writeMarker(at time.Time) error {
	path := t.fs.PathJoin(t.dir, PurgePendingFile)
	tmp := path + ".tmp"
	f, err := t.fs.Create(tmp, vfs.WriteCategoryUnspecified)
	if err != nil {
		return fmt.Errorf("storage: write purge marker: %w", err)
	}
	_, err = f.Write(nanos(at))
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = t.fs.Rename(tmp, path)
	}
	if err == nil {
		err = t.syncDir()
	}
	if err != nil {
		return fmt.Errorf("storage: write purge marker: %w", err)
	}
	return nil
}

// removeMarker removes the marker file durably.
func (t *purgeTracker) removeMarker() error {
	err := t.fs.Remove(t.fs.PathJoin(t.dir, PurgePendingFile))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("storage: remove purge marker: %w", err)
	}
	if err := t.syncDir(); err != nil {
		return fmt.Errorf("storage: remove purge marker: %w", err)
	}
	return nil
}

func (t *purgeTracker) syncDir() error {
	d, err := t.fs.OpenDir(t.dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}

// wholeKeyspace spans every key the store writes: each starts with a
// keyspace prefix byte in (0x00, 0xff).
func wholeKeyspace() purgeSpan {
	return purgeSpan{start: []byte{0x00}, end: []byte{0xff}}
}

// batchSpans returns the spans a batch deletes, one per keyspace prefix,
// or nil when it deletes nothing.
func batchSpans(b *pebble.Batch) []purgeSpan {
	var out []purgeSpan
	r := b.Reader()
	for {
		kind, k, v, ok, err := r.Next()
		if err != nil {
			// A batch we built ourselves cannot be corrupt; be safe anyway.
			return []purgeSpan{wholeKeyspace()}
		}
		if !ok {
			return out
		}
		var start, end []byte
		switch kind {
		case pebble.InternalKeyKindDelete, pebble.InternalKeyKindSingleDelete, pebble.InternalKeyKindDeleteSized:
			start, end = k, nil
		case pebble.InternalKeyKindRangeDelete:
			start, end = k, v
		default:
			continue
		}
		if len(start) == 0 {
			out = addBatchSpan(out, purgeSpan{start: []byte{}, end: []byte{0xff}})
			continue
		}
		out = addBatchSpan(out, purgeSpan{start: start, end: end})
	}
}

// addBatchSpan widens the span of sp's prefix byte to cover sp, copying
// only the bytes it keeps. A nil end means the point key start.
func addBatchSpan(out []purgeSpan, sp purgeSpan) []purgeSpan {
	end := sp.end
	if end == nil {
		end = append(append(make([]byte, 0, len(sp.start)+1), sp.start...), 0)
	}
	for i := range out {
		o := &out[i]
		if len(o.start) > 0 && len(sp.start) > 0 && o.start[0] == sp.start[0] {
			if bytes.Compare(sp.start, o.start) < 0 {
				o.start = bytes.Clone(sp.start)
			}
			if bytes.Compare(end, o.end) > 0 {
				if sp.end != nil {
					end = bytes.Clone(end)
				}
				o.end = end
			}
			return out
		}
	}
	if sp.end != nil {
		end = bytes.Clone(end)
	}
	return append(out, purgeSpan{start: bytes.Clone(sp.start), end: end})
}

// beforeCommit is called with a batch about to be committed. If the batch
// deletes something it counts the commit as in flight and, when there is
// no marker file, writes one, so that a crash cannot forget the deletion.
// It returns the batch's spans, for afterCommit.
func (t *purgeTracker) beforeCommit(b *pebble.Batch) ([]purgeSpan, error) {
	spans := batchSpans(b)
	if len(spans) == 0 {
		return nil, nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.marker {
		if err := t.writeMarker(t.now()); err != nil {
			return nil, err
		}
		t.marker = true
	}
	t.inflight++
	return spans, nil
}

// afterCommit records the spans of a committed batch. They are recorded
// after the commit, so a cycle that takes them flushes their tombstones.
// A failed commit is recorded too: tracking too much is harmless.
func (t *purgeTracker) afterCommit(spans []purgeSpan) {
	if len(spans) == 0 {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.inflight--
	t.addLocked(spans, t.now())
}

// addLocked merges spans deleted at time at into the pending set.
func (t *purgeTracker) addLocked(spans []purgeSpan, at time.Time) {
	if t.oldest.IsZero() || at.Before(t.oldest) {
		t.oldest = at
	}
	for _, sp := range spans {
		t.spans = insertSpan(t.spans, sp)
	}
	for len(t.spans) > maxPurgeSpans {
		t.spans = mergeClosest(t.spans)
	}
}

// insertSpan adds sp to a sorted set of disjoint spans, merging it with
// every span it overlaps or touches.
func insertSpan(spans []purgeSpan, sp purgeSpan) []purgeSpan {
	i, _ := slices.BinarySearchFunc(spans, sp.start, func(s purgeSpan, k []byte) int {
		return bytes.Compare(s.start, k)
	})
	// Merge with the span before when it reaches sp.
	if i > 0 && bytes.Compare(spans[i-1].end, sp.start) >= 0 {
		i--
		sp.start = spans[i].start
		if bytes.Compare(spans[i].end, sp.end) > 0 {
			sp.end = spans[i].end
		}
	}
	j := i
	for j < len(spans) && bytes.Compare(spans[j].start, sp.end) <= 0 {
		if bytes.Compare(spans[j].end, sp.end) > 0 {
			sp.end = spans[j].end
		}
		j++
	}
	return slices.Replace(spans, i, j, sp)
}

// mergeClosest merges the two neighbouring spans whose gap is smallest in
// key order, measured by the longest common prefix of the first span's end
// and the second's start.
func mergeClosest(spans []purgeSpan) []purgeSpan {
	best, bestLen := 0, -1
	for i := 0; i+1 < len(spans); i++ {
		if n := commonPrefix(spans[i].end, spans[i+1].start); n > bestLen {
			best, bestLen = i, n
		}
	}
	merged := purgeSpan{start: spans[best].start, end: spans[best+1].end}
	return slices.Replace(spans, best, best+2, merged)
}

func commonPrefix(a, b []byte) int {
	n := min(len(a), len(b))
	for i := range n {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

// due reports whether the oldest pending deletion is half the bound old.
func (t *purgeTracker) due() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return !t.oldest.IsZero() && t.now().Sub(t.oldest) >= t.after/2
}

// take hands the pending spans to a cycle.
func (t *purgeTracker) take() []purgeSpan {
	t.mu.Lock()
	defer t.mu.Unlock()
	spans := t.spans
	t.cycling = t.oldest
	t.spans, t.oldest = nil, time.Time{}
	return spans
}

// giveBack returns the spans a failed cycle did not purge.
func (t *purgeTracker) giveBack(spans []purgeSpan, since time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.stats.Failures++
	t.cycling = time.Time{}
	if len(spans) > 0 {
		t.addLocked(spans, since)
	}
}

// snapshot returns the current figures.
func (t *purgeTracker) snapshot() PurgeStats {
	t.mu.Lock()
	defer t.mu.Unlock()
	st := t.stats
	st.After = t.after
	st.PendingSpans = len(t.spans)
	oldest := t.oldest
	if !t.cycling.IsZero() && (oldest.IsZero() || t.cycling.Before(oldest)) {
		oldest = t.cycling
	}
	if !oldest.IsZero() {
		st.OldestPending = max(t.now().Sub(oldest), 0)
	}
	return st
}

func nanos(at time.Time) []byte {
	return binary.BigEndian.AppendUint64(nil, uint64(at.UnixNano()))
}

// PurgeStats returns the figures of the physical purge.
func (s *Store) PurgeStats() PurgeStats { return s.purge.snapshot() }

// PurgeDue runs a purge cycle if the oldest pending deletion is half the
// purge bound old, and reports whether it ran one.
func (s *Store) PurgeDue(ctx context.Context) (bool, error) {
	if !s.purge.due() {
		return false, nil
	}
	return true, s.Purge(ctx)
}

// Purge runs one purge cycle now: it flushes the memtable, so that the
// write-ahead logs holding deleted values are retired and removed, then
// compacts every pending span to the bottom level, resting between
// compactions to stay within the purge duty cycle (a rest as long as the
// compaction took in real time, waited with Options.After). When it returns nil,
// every deletion committed before it started is gone from the files of the
// data directory, except from sstables an open iterator or snapshot still
// reads (they are removed when released). On failure the spans not yet
// purged stay pending.
func (s *Store) Purge(ctx context.Context) error {
	if s.closed.Load() {
		return ErrClosed
	}
	s.purgeMu.Lock()
	defer s.purgeMu.Unlock()
	t := s.purge
	spans := t.take()
	t.mu.Lock()
	since := t.cycling
	t.mu.Unlock()
	start := time.Now()
	if err := s.Flush(); err != nil {
		t.giveBack(spans, since)
		return fmt.Errorf("storage: purge: %w", err)
	}
	for i, sp := range spans {
		began := time.Now()
		if err := s.db.Compact(ctx, sp.start, sp.end, false); err != nil {
			t.giveBack(spans[i:], since)
			return fmt.Errorf("storage: purge: compact: %w", err)
		}
		t.mu.Lock()
		t.stats.CompactedSpans++
		t.mu.Unlock()
		if i+1 < len(spans) {
			rest := time.Duration(float64(time.Since(began)) * (1 - purgeDutyCycle) / purgeDutyCycle)
			select {
			case <-ctx.Done():
				t.giveBack(spans[i+1:], since)
				return fmt.Errorf("storage: purge: %w", ctx.Err())
			case <-s.opts.After(rest):
			}
		}
	}
	return s.finishPurge(time.Since(start))
}

// purgePoll is the interval between the purge loop's checks for a purge
// bound: a twentieth of it, within [50 ms, 1 s].
func purgePoll(after time.Duration) time.Duration {
	return min(max(after/20, 50*time.Millisecond), time.Second)
}

// finishPurge ends a cycle: it removes the marker file when nothing is
// pending or in flight, or moves it to the oldest pending deletion. It
// runs under the tracker's lock, so a delete batch that starts after this
// decision writes a new marker.
func (s *Store) finishPurge(took time.Duration) error {
	t := s.purge
	t.mu.Lock()
	defer t.mu.Unlock()
	t.cycling = time.Time{}
	t.stats.Cycles++
	t.stats.LastCycle = took
	var err error
	switch {
	case len(t.spans) == 0 && t.inflight == 0:
		if t.marker {
			err = t.removeMarker()
			if err == nil {
				t.marker = false
			}
		}
	case !t.oldest.IsZero():
		err = t.writeMarker(t.oldest)
	}
	if err != nil {
		return fmt.Errorf("storage: purge: update marker: %w", err)
	}
	return nil
}

// RunPurge runs the purge loop until ctx ends: it checks, every poll
// interval (waited with Options.After, real time by default), whether the
// oldest pending deletion is due by the store's clock (Options.Now), and
// runs a cycle if it is. A failed cycle is logged and retried at the next
// check.
func (s *Store) RunPurge(ctx context.Context) error {
	poll := purgePoll(s.opts.PurgeAfter)
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-s.opts.After(poll):
		}
		if _, err := s.PurgeDue(ctx); err != nil {
			if ctx.Err() != nil || errors.Is(err, ErrClosed) {
				return nil
			}
			s.opts.Logger.Error("storage: purge cycle failed; retrying", "err", err)
		}
	}
}
