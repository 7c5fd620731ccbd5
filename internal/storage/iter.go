package storage

import (
	"fmt"

	"github.com/cockroachdb/pebble/v2"

	"github.com/mayfly/mayfly/internal/invariants"
)

// Iter walks keys in order within its bounds. Key and Value are valid only
// until the next call that moves the iterator. An Iter must be closed.
type Iter struct {
	it *pebble.Iterator
	// m is set instead of it for the iterator of a batch on a snapshot.
	m     *mergeIter
	store *Store
}

func newIter(s *Store, r pebbleReader, lower, upper []byte) (*Iter, error) {
	it, err := r.NewIter(&pebble.IterOptions{LowerBound: lower, UpperBound: upper})
	if err != nil {
		return nil, fmt.Errorf("storage: new iterator: %w", err)
	}
	if invariants.Enabled {
		s.openIters.Add(1)
	}
	return &Iter{it: it, store: s}, nil
}

// First moves to the first key; it reports whether one exists.
func (i *Iter) First() bool {
	if i.m != nil {
		return i.m.first()
	}
	return i.it.First()
}

// Last moves to the last key; it reports whether one exists.
func (i *Iter) Last() bool {
	if i.m != nil {
		return i.m.last()
	}
	return i.it.Last()
}

// Next moves to the next key; it reports whether one exists.
func (i *Iter) Next() bool {
	if i.m != nil {
		return i.m.next()
	}
	return i.it.Next()
}

// Prev moves to the previous key; it reports whether one exists.
func (i *Iter) Prev() bool {
	if i.m != nil {
		return i.m.prev()
	}
	return i.it.Prev()
}

// SeekGE moves to the first key >= key.
func (i *Iter) SeekGE(key []byte) bool {
	if i.m != nil {
		return i.m.seekGE(key)
	}
	return i.it.SeekGE(key)
}

// SeekLT moves to the last key < key.
func (i *Iter) SeekLT(key []byte) bool {
	if i.m != nil {
		return i.m.seekLT(key)
	}
	return i.it.SeekLT(key)
}

// Valid reports whether the iterator is on a key.
func (i *Iter) Valid() bool {
	if i.m != nil {
		return i.m.valid()
	}
	return i.it.Valid()
}

// Key returns the current key.
func (i *Iter) Key() []byte {
	if i.m != nil {
		return i.m.key()
	}
	return i.it.Key()
}

// Value returns the current value.
func (i *Iter) Value() []byte {
	if i.m != nil {
		v, err := i.m.value()
		if err != nil {
			return nil
		}
		return v
	}
	v, err := i.it.ValueAndErr()
	if err != nil {
		return nil
	}
	return v
}

// Error returns the first error the iterator met, if any.
func (i *Iter) Error() error {
	if i.m != nil {
		return i.m.error()
	}
	return i.it.Error()
}

// Close releases the iterator and returns its error, if any.
func (i *Iter) Close() error {
	if invariants.Enabled {
		i.store.openIters.Add(-1)
	}
	if i.m != nil {
		if err := i.m.close(); err != nil {
			return fmt.Errorf("storage: iterator: %w", err)
		}
		return nil
	}
	if err := i.it.Close(); err != nil {
		return fmt.Errorf("storage: iterator: %w", err)
	}
	return nil
}
