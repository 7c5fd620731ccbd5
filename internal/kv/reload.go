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
