package storage

import (
	"fmt"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/batchrepr"
)

// Batch is a set of writes applied atomically by Commit. A Batch is not safe
// for concurrent use. Close must be called, committed or not.
type Batch struct {
	b       *pebble.Batch
	s       *Store
	indexed bool
	deletes bool // the batch deletes something: the purge tracks it
	// over and view are set for a batch on a snapshot
	// (NewSnapshotBatch): view holds the batch's writes, marked, for
	// reading them back over the snapshot.
	over *Snapshot
	view *pebble.Batch
}

// Set writes value under key. The batch copies both.
func (b *Batch) Set(key, value []byte) error {
	if err := b.b.Set(key, value, nil); err != nil {
		return fmt.Errorf("storage: batch set: %w", err)
	}
	if b.view != nil {
		op := b.view.SetDeferred(len(key), 1+len(value))
		copy(op.Key, key)
		op.Value[0] = overlaySet
		copy(op.Value[1:], value)
		if err := op.Finish(); err != nil {
			return fmt.Errorf("storage: batch set: %w", err)
		}
	}
	return nil
}

// Delete removes key.
func (b *Batch) Delete(key []byte) error {
	if err := b.b.Delete(key, nil); err != nil {
		return fmt.Errorf("storage: batch delete: %w", err)
	}
	if b.view != nil {
		if err := b.view.Set(key, []byte{overlayDeleted}, nil); err != nil {
			return fmt.Errorf("storage: batch delete: %w", err)
		}
	}
	b.deletes = true
	return nil
}

// DeleteRange removes every key in [start, end).
func (b *Batch) DeleteRange(start, end []byte) error {
	if b.view != nil {
		return ErrNotIndexed
	}
	if err := b.b.DeleteRange(start, end, nil); err != nil {
		return fmt.Errorf("storage: batch delete range: %w", err)
	}
	b.deletes = true
	return nil
}

// Get reads key through the batch: its own writes over the latest state of
// the store. Only an indexed batch can be read.
func (b *Batch) Get(key []byte) ([]byte, error) {
	if !b.indexed {
		return nil, ErrNotIndexed
	}
	if b.view != nil {
		return b.overlayGet(key)
	}
	return get(b.b, key)
}

// NewIter iterates [lower, upper) through the batch. Only an indexed batch
// can be read.
func (b *Batch) NewIter(lower, upper []byte) (*Iter, error) {
	if !b.indexed {
		return nil, ErrNotIndexed
	}
	if b.view != nil {
		return b.overlayIter(lower, upper)
	}
	return newIter(b.s, b.b, lower, upper)
}

// Indexed reports whether the batch can be read (NewIndexedBatch).
func (b *Batch) Indexed() bool { return b.indexed }

// ToIndexed returns an indexed batch holding b's writes, so that they can
// be read back, and closes b. An indexed b is returned as it is. Writing to
// a plain batch and indexing it only when a read needs it spares the
// common write-only batch the cost of maintaining the index.
func (b *Batch) ToIndexed() (*Batch, error) {
	if b.indexed {
		return b, nil
	}
	nb := b.s.NewIndexedBatch()
	if err := nb.b.Apply(b.b, nil); err != nil {
		nb.Close()
		return nil, fmt.Errorf("storage: index batch: %w", err)
	}
	nb.deletes = b.deletes
	b.Close()
	return nb, nil
}

// Count returns the number of writes in the batch.
func (b *Batch) Count() uint32 { return b.b.Count() }

// Empty reports whether the batch holds no writes.
func (b *Batch) Empty() bool { return b.b.Empty() }

// Repr returns the batch's representation, what a Replicator receives and
// ApplyReplicated applies. It belongs to the batch.
func (b *Batch) Repr() []byte { return b.b.Repr() }

// Keys calls fn with the key of every write of the batch, in order, and
// with the end of the range for a range deletion (end is nil for every
// other write).
func (b *Batch) Keys(fn func(key, end []byte)) error {
	r := batchrepr.Read(b.b.Repr())
	for {
		kind, key, value, ok, err := r.Next()
		switch {
		case err != nil:
			return fmt.Errorf("storage: batch keys: %w", err)
		case !ok:
			return nil
		case kind == pebble.InternalKeyKindLogData:
		case kind == pebble.InternalKeyKindRangeDelete:
			fn(key, value)
		default:
			fn(key, nil)
		}
	}
}

// Len returns the size of the batch's representation in bytes.
func (b *Batch) Len() int { return b.b.Len() }

// Commit applies the batch atomically with the store's durability: under
// DurabilitySync it returns once the log is fsynced. When the store has a
// Replicator, the batch goes through it instead, and is applied by the
// replica set (ApplyReplicated).
func (b *Batch) Commit() error {
	if b.s.closed.Load() {
		return ErrClosed
	}
	if b.b.Empty() {
		return nil
	}
	if r := b.s.replicator.Load(); r != nil {
		return (*r).Replicate(b.b.Repr())
	}
	return b.s.commitLocal(b.b, b.deletes)
}

// commitLocal applies a Pebble batch to this store with its durability.
func (s *Store) commitLocal(pb *pebble.Batch, deletes bool) error {
	var spans []purgeSpan
	if deletes {
		var err error
		if spans, err = s.purge.beforeCommit(pb); err != nil {
			return err
		}
	}
	err := pb.Commit(s.writeOpt)
	s.purge.afterCommit(spans)
	if err != nil {
		return fmt.Errorf("storage: commit: %w", err)
	}
	if s.writeOpt != pebble.Sync {
		s.dirty.Store(true)
	}
	return nil
}

// Close releases the batch. Writes not committed are discarded.
func (b *Batch) Close() error {
	if b.view != nil {
		b.view.Close()
	}
	return b.b.Close()
}
