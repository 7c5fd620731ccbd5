package kv

import (
	"fmt"

	"github.com/mayfly/mayfly/internal/storage"
)

// Committing a Tx is two stages, handed over hand over hand so that the
// Pebble write of one Tx overlaps the execution of the next:
//
//  1. Under s.mu, Commit publishes the Tx to the in-memory state (counters,
//     metadata cache, database map, stats, observer) exactly as if its batch
//     were already in storage.
//  2. It then takes s.commitMu, releases s.mu, applies the batch to storage
//     and releases s.commitMu.
//
// commitMu is taken while mu is held, so batches reach storage in exactly
// the order of the mutex, and at most one applies while the next Tx runs.
// The lock order is always mu then commitMu; nothing takes mu while
// holding commitMu.
//
// Two rules keep this invisible to clients:
//
//   - A Tx reads storage only after the batch before it is applied
//     (Tx.applied: lock and unlock commitMu once per Tx). Reads served from
//     the in-memory state (a metadata cache hit) do not wait: that state is
//     already current.
//   - Every Tx, read-only or rolled back, passes through commitMu before
//     Commit or Rollback returns, so no reply that depends on a write is
//     sent before that write is in storage (and, under DurabilitySync,
//     fsynced). Keyspace events reach the Observer in stage 1, before the
//     write is applied, because touched keys must invalidate WATCH before
//     the next Tx runs.
//
// On a member of a replica set, stage 2 proposes the batch to raft
// instead (propose) and releases commitMu at once, so the batches of
// several Txs travel to the followers together; every Tx then waits,
// outside the locks, for the last proposal made before it released
// commitMu (Store.proposed), which raft applies after every earlier one.
// waitApplied waits for it too. The two rules above hold as they are,
// except that a metadata read that misses the cache, or a read of one
// collection's elements (Tx.elems), waits only when a proposal not yet
// applied wrote that key or an element of that collection (unapplied.go).
//
// Failure is fail-stop. If a batch cannot be applied, the in-memory state
// already published is ahead of storage and cannot be trusted: the store
// records the error, logs it, and every later Commit (and the Tx whose
// batch failed, and every Tx that ran against the unapplied state) returns
// it wrapped in ErrFailed. Only a restart, which rebuilds the in-memory
// state from storage, clears it. Pebble treats a failed log write as fatal
// for the same reason.

// failure is the sticky error of a failed apply.
type failure struct{ err error }

// Err returns the error that stopped the store (wrapping ErrFailed), or nil
// while it works.
func (s *Store) Err() error {
	if f := s.failed.Load(); f != nil {
		return f.err
	}
	return nil
}

// apply writes b to storage. It runs holding commitMu only. A failure makes
// the store fail-stop.
func (s *Store) apply(b *storage.Batch) error {
	var err error
	if s.applyHook != nil {
		err = s.applyHook()
	}
	if err == nil {
		err = b.Commit()
	}
	if err == nil {
		return nil
	}
	err = fmt.Errorf("%w: commit to storage: %w", ErrFailed, err)
	if s.failed.CompareAndSwap(nil, &failure{err: err}) {
		s.opts.Logger.Error("kv: a commit could not be applied to storage; "+
			"refusing every later commit until the server restarts", "err", err)
	}
	return err
}

// waitApplied returns once every batch committed before it is in storage.
// The caller holds mu, so no new batch can be queued meanwhile.
func (s *Store) waitApplied() {
	s.commitMu.Lock()
	w, seq := s.proposed, s.proposedSeq
	s.commitMu.Unlock()
	if w != nil && w() == nil {
		s.unapplied.advance(seq)
	}
}

// applied makes the storage reads of tx see every earlier commit: it waits
// once per Tx for the batch still being applied, if any.
func (tx *Tx) applied() {
	if !tx.synced {
		tx.s.waitApplied()
		tx.synced = true
	}
}

// finish ends tx: it resets and pools it, hands the store over to the next
// Tx, and applies b (nil for none) in commit order. It returns the apply's
// error or the store's failure.
func (tx *Tx) finish(b *storage.Batch) error {
	s := tx.s
	tx.reset()
	s.txPool.Put(tx)
	seq := s.unapplied.last // this Tx's proposal number, if it has one
	s.commitMu.Lock()
	s.mu.Unlock()
	err := s.Err()
	if b != nil {
		if err == nil && !b.Empty() {
			if s.st.Replicating() {
				s.propose(b, seq)
			} else {
				err = s.apply(b)
			}
		}
		b.Close()
	}
	w, wseq := s.proposed, s.proposedSeq
	s.commitMu.Unlock()
	if w != nil {
		// A replicated store: wait for the last proposal, this Tx's or an
		// earlier one whose state this Tx may have read from memory.
		if perr := w(); perr != nil {
			err = s.proposalFailed(perr)
		} else {
			s.unapplied.advance(wseq)
		}
	}
	return err
}

// propose hands b, proposal number seq (unapplied.go), to the replica set
// without waiting (storage's Batch.Propose) and records it as the last
// proposal. It runs holding commitMu, so proposals keep the order of the
// mutex; the replica set joins the proposals of concurrent Txs.
func (s *Store) propose(b *storage.Batch, seq uint64) {
	s.proposedSeq = seq
	if s.applyHook != nil {
		if err := s.applyHook(); err != nil {
			s.proposed = func() error { return err }
			return
		}
	}
	s.proposed = b.Propose()
}

// proposalFailed makes the store fail-stop after a proposal failed, as
// apply does for a failed commit, and returns the error.
func (s *Store) proposalFailed(err error) error {
	err = fmt.Errorf("%w: commit to storage: %w", ErrFailed, err)
	if s.failed.CompareAndSwap(nil, &failure{err: err}) {
		s.opts.Logger.Error("kv: a commit could not be replicated; "+
			"refusing every later commit until the store is reloaded", "err", err)
	}
	return s.Err()
}
