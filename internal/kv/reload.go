package kv

import (
	"context"
	"errors"
	"fmt"

	"github.com/mayfly/mayfly/internal/storage"
)

// Reload rebuilds the store's in-memory state from storage, as Open does:
// the database map, the counters, the version high-water mark, the
// metadata cache and the due counts; it also clears a failure (ErrFailed),
// since the state it rebuilds is storage's. A member of a replica set calls
// it after batches written by another member were applied to its storage,
// which the store did not see, and when it stops being primary.
func (s *Store) Reload(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stale.Store(false)
	return s.reload(ctx)
}

// MarkStale makes the next Tx rebuild the in-memory state first, as
// Reload does: a follower of a replica set calls it after each batch of
// another member, so that bursts of them cost one rebuild, and none while
// nobody reads.
func (s *Store) MarkStale() { s.stale.Store(true) }

// reloadIfStale rebuilds the state when MarkStale asked for it; s.mu is
// held. A failure is logged and leaves the store marked stale.
func (s *Store) reloadIfStale() {
	if !s.stale.Swap(false) {
		return
	}
	if err := s.reload(context.Background()); err != nil {
		s.stale.Store(true)
		s.opts.Logger.Error("kv: rebuild the in-memory state after replicated writes", "err", err)
	}
}

// reload is Reload with s.mu held.
func (s *Store) reload(ctx context.Context) error {
	s.waitApplied()
	for i := range s.dbmap {
		s.dbmap[i] = byte(i)
	}
	if v, err := s.st.Get(dbmapKey()); err == nil {
		if len(v) != NumDBs {
			return fmt.Errorf("%w: database map of %d bytes", ErrCorrupt, len(v))
		}
		copy(s.dbmap[:], v)
	} else if !errors.Is(err, storage.ErrNotFound) {
		return fmt.Errorf("kv: read database map: %w", err)
	}
	m := s.dbmap
	s.dbmapAtomic.Store(&m)
	s.c = [NumDBs]counters{}
	s.cache.clear()
	s.dueFrom = [NumDBs][]byte{}
	s.dueCounts = [NumDBs]dueCount{}
	if err := s.load(ctx); err != nil {
		return err
	}
	s.publishUsed()
	s.commitMu.Lock()
	s.proposed = nil
	s.unapplied.reset()
	s.commitMu.Unlock()
	s.failed.Store(nil)
	return nil
}

// Writable returns nil when the store's storage accepts writes: always on
// a standalone server; on a member of a replica set, only on the primary
// (otherwise an error wrapping ErrNotPrimary).
func (s *Store) Writable() error { return s.st.Writable() }

// ErrNotPrimary is the error of a write on a replica set member that is
// not the primary.
var ErrNotPrimary = storage.ErrNotPrimary
