package storage

import (
	"fmt"
	"io"
)

// Replicator takes over the commit of every batch of a store that is a
// member of a replica set. Replicate receives the batch's representation
// (which it must not keep past the call: it belongs to the batch) and
// returns once the replica set has committed it and this store has applied
// it through ApplyReplicated, or with an error wrapping ErrNotPrimary when
// this member does not accept writes.
type Replicator interface {
	Replicate(repr []byte) error
	// Propose hands the batch over like Replicate, in call order, without
	// waiting: wait returns once it is committed and applied (or failed).
	// Batches proposed one after the other are applied in that order, so
	// waiting for the last one waits for every one before it. wait may be
	// called any number of times, from any goroutine.
	Propose(repr []byte) (wait func() error)
	// Writable returns nil when this member accepts writes, or an error
	// wrapping ErrNotPrimary.
	Writable() error
}

// SetReplicator makes every later Commit go through r; nil restores local
// commits. A standalone store never has one.
func (s *Store) SetReplicator(r Replicator) {
	if r == nil {
		s.replicator.Store(nil)
		return
	}
	s.replicator.Store(&r)
}

// Replicating reports whether the store has a Replicator.
func (s *Store) Replicating() bool { return s.replicator.Load() != nil }

// Propose hands the batch to the store's Replicator without waiting for
// its commit (Replicator.Propose); the batch may be closed at once. On a
// store without a Replicator it commits the batch and returns its result.
func (b *Batch) Propose() (wait func() error) {
	if b.s.closed.Load() {
		return func() error { return ErrClosed }
	}
	if r := b.s.replicator.Load(); r != nil && !b.b.Empty() {
		return (*r).Propose(b.b.Repr())
	}
	err := b.Commit()
	return func() error { return err }
}

// Writable returns nil when a Commit can succeed as far as replication is
// concerned: always on a standalone store, and on a member of a replica
// set only while it is the primary.
func (s *Store) Writable() error {
	if r := s.replicator.Load(); r != nil {
		return (*r).Writable()
	}
	return nil
}

// ApplyReplicated applies batch representations that the replica set has
// committed, in order and as one atomic commit, bypassing the Replicator,
// with the store's durability.
func (s *Store) ApplyReplicated(reprs ...[]byte) error {
	if s.closed.Load() {
		return ErrClosed
	}
	// The representations are joined into a buffer of the store's own:
	// a batch keeps the buffer it was given when it returns to Pebble's
	// pool, and reprs belong to the caller (raft's cached log entries).
	size := 0
	for _, repr := range reprs {
		size += len(repr)
	}
	joined := make([]byte, 0, size)
	for _, repr := range reprs {
		var err error
		if joined, err = AppendRepr(joined, repr); err != nil {
			return fmt.Errorf("storage: decode replicated batch: %w", err)
		}
	}
	if len(joined) == 0 {
		return nil // no representations
	}
	pb := s.db.NewBatch()
	defer pb.Close()
	if err := pb.SetRepr(joined); err != nil {
		return fmt.Errorf("storage: decode replicated batch: %w", err)
	}
	if pb.Empty() {
		return nil
	}
	return s.commitLocal(pb, true)
}

// ReplaceAll replaces the whole content of the store with the key/value
// pairs next yields (until it returns io.EOF), bypassing the Replicator:
// the restore of a replica set snapshot. Each pair is copied.
func (s *Store) ReplaceAll(next func() (key, value []byte, err error)) error {
	if s.closed.Load() {
		return ErrClosed
	}
	pb := s.db.NewBatch()
	// Every keyspace prefix is below 0xff (keyspaces.go).
	if err := pb.DeleteRange([]byte{0}, []byte{0xff}, nil); err != nil {
		pb.Close()
		return fmt.Errorf("storage: restore: %w", err)
	}
	const chunk = 4 << 20
	for {
		k, v, err := next()
		if err == io.EOF {
			break
		}
		if err != nil {
			pb.Close()
			return fmt.Errorf("storage: restore: %w", err)
		}
		if err := pb.Set(k, v, nil); err != nil {
			pb.Close()
			return fmt.Errorf("storage: restore: %w", err)
		}
		if pb.Len() >= chunk {
			err := s.commitLocal(pb, true)
			pb.Close()
			if err != nil {
				return err
			}
			pb = s.db.NewBatch()
		}
	}
	err := s.commitLocal(pb, true)
	pb.Close()
	if err != nil {
		return err
	}
	return s.SyncWAL()
}
