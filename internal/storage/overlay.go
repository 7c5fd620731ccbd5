package storage

import (
	"bytes"
	"context"
	"fmt"

	"github.com/cockroachdb/pebble/v2"

	"github.com/mayfly/mayfly/internal/invariants"
)

// Overlay marks: every key an overlay batch writes is kept in its private
// view with one of these first bytes, so that a deletion hides the
// snapshot's value instead of vanishing from the view.
const (
	overlayDeleted byte = 0
	overlaySet     byte = 1
)

// NewSnapshotBatch returns a batch whose Get and NewIter see its own writes
// over snap (not over the latest state, as NewIndexedBatch does): the
// view of a transaction that started when snap was taken. Its writes are
// committed by Commit like any batch's. It takes no range deletions. The
// caller closes snap after the batch.
func (s *Store) NewSnapshotBatch(snap *Snapshot) *Batch {
	return &Batch{b: s.db.NewBatch(), s: s, indexed: true, over: snap, view: s.db.NewIndexedBatch()}
}

// overlayGet reads key through the batch's own writes, then its snapshot.
func (b *Batch) overlayGet(key []byte) ([]byte, error) {
	it, err := b.view.NewBatchOnlyIter(context.Background(), &pebble.IterOptions{LowerBound: key, UpperBound: append(bytes.Clone(key), 0)})
	if err != nil {
		return nil, fmt.Errorf("storage: overlay get: %w", err)
	}
	if it.First() {
		v := it.Value()
		var out []byte
		var found bool
		if len(v) > 0 && v[0] == overlaySet {
			out, found = append([]byte(nil), v[1:]...), true
		}
		if err := it.Close(); err != nil {
			return nil, fmt.Errorf("storage: overlay get: %w", err)
		}
		if !found {
			return nil, ErrNotFound
		}
		return out, nil
	}
	if err := it.Close(); err != nil {
		return nil, fmt.Errorf("storage: overlay get: %w", err)
	}
	return b.over.Get(key)
}

// overlayIter returns an iterator merging the batch's own writes over its
// snapshot.
func (b *Batch) overlayIter(lower, upper []byte) (*Iter, error) {
	opts := &pebble.IterOptions{LowerBound: lower, UpperBound: upper}
	base, err := b.over.snap.NewIter(opts)
	if err != nil {
		return nil, fmt.Errorf("storage: new iterator: %w", err)
	}
	own, err := b.view.NewBatchOnlyIter(context.Background(), opts)
	if err != nil {
		base.Close()
		return nil, fmt.Errorf("storage: new iterator: %w", err)
	}
	if invariants.Enabled {
		b.s.openIters.Add(1)
	}
	return &Iter{m: &mergeIter{base: base, own: own}, store: b.s}, nil
}

// mergeIter walks the keys of a snapshot (base) with a batch's own writes
// (own, values marked overlaySet or overlayDeleted) over them: a key the
// batch wrote shows the batch's value, or nothing when it deleted it.
type mergeIter struct {
	base, own *pebble.Iterator
	// cur is the iterator the merged position is on, nil when none.
	cur *pebble.Iterator
	// back is set while moving backwards.
	back bool
}

func (m *mergeIter) first() bool {
	m.base.First()
	m.own.First()
	m.back = false
	return m.settleForward()
}

func (m *mergeIter) last() bool {
	m.base.Last()
	m.own.Last()
	m.back = true
	return m.settleBackward()
}

func (m *mergeIter) seekGE(key []byte) bool {
	m.base.SeekGE(key)
	m.own.SeekGE(key)
	m.back = false
	return m.settleForward()
}

func (m *mergeIter) seekLT(key []byte) bool {
	m.base.SeekLT(key)
	m.own.SeekLT(key)
	m.back = true
	return m.settleBackward()
}

func (m *mergeIter) next() bool {
	if m.cur == nil {
		return false
	}
	if m.back {
		key := bytes.Clone(m.cur.Key())
		m.base.SeekGE(key)
		m.own.SeekGE(key)
		if m.base.Valid() && bytes.Equal(m.base.Key(), key) {
			m.base.Next()
		}
		if m.own.Valid() && bytes.Equal(m.own.Key(), key) {
			m.own.Next()
		}
		m.back = false
		return m.settleForward()
	}
	m.cur.Next()
	return m.settleForward()
}

func (m *mergeIter) prev() bool {
	if m.cur == nil {
		return false
	}
	if !m.back {
		key := bytes.Clone(m.cur.Key())
		m.base.SeekLT(key)
		m.own.SeekLT(key)
		m.back = true
		return m.settleBackward()
	}
	m.cur.Prev()
	return m.settleBackward()
}

// settleForward positions the merge on the smallest live key at or after
// both iterators: on equal keys the batch's write wins and the snapshot's
// key is passed; a deletion passes both.
func (m *mergeIter) settleForward() bool {
	for {
		bv, ov := m.base.Valid(), m.own.Valid()
		switch {
		case !bv && !ov:
			m.cur = nil
			return false
		case !ov || bv && bytes.Compare(m.base.Key(), m.own.Key()) < 0:
			m.cur = m.base
			return true
		}
		if bv && bytes.Equal(m.base.Key(), m.own.Key()) {
			m.base.Next()
		}
		if v := m.own.Value(); len(v) > 0 && v[0] == overlaySet {
			m.cur = m.own
			return true
		}
		m.own.Next()
	}
}

// settleBackward is settleForward moving backwards: the largest live key
// at or before both iterators.
func (m *mergeIter) settleBackward() bool {
	for {
		bv, ov := m.base.Valid(), m.own.Valid()
		switch {
		case !bv && !ov:
			m.cur = nil
			return false
		case !ov || bv && bytes.Compare(m.base.Key(), m.own.Key()) > 0:
			m.cur = m.base
			return true
		}
		if bv && bytes.Equal(m.base.Key(), m.own.Key()) {
			m.base.Prev()
		}
		if v := m.own.Value(); len(v) > 0 && v[0] == overlaySet {
			m.cur = m.own
			return true
		}
		m.own.Prev()
	}
}

func (m *mergeIter) valid() bool { return m.cur != nil }

func (m *mergeIter) key() []byte { return m.cur.Key() }

func (m *mergeIter) value() ([]byte, error) {
	v, err := m.cur.ValueAndErr()
	if err != nil || m.cur == m.base {
		return v, err
	}
	return v[1:], nil
}

func (m *mergeIter) error() error {
	if err := m.base.Error(); err != nil {
		return err
	}
	return m.own.Error()
}

func (m *mergeIter) close() error {
	err := m.base.Close()
	if oerr := m.own.Close(); err == nil {
		err = oerr
	}
	return err
}
