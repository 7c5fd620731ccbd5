package events

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/mayfly/mayfly/internal/storage"
)

// Refresh brings the log's in-memory state up to the records its store
// holds, for a store whose records are written by another process's log
// (a replica set member applying the primary's batches): the records
// after the last one known become visible to readers, and the trimming
// the writer did is taken over. With full, the size of the records is
// counted again and the index of inserts that refer to their stored
// document emptied (it is built from the log when next needed), as a
// member that starts writing records itself needs; without, the
// size only grows by the new records.
//
// A log with batches in flight writes its own records and is left as it
// is.
func (l *Log) Refresh(full bool) error {
	refreshed, err := l.refreshRecords(full)
	if err != nil || !refreshed || !full {
		return err
	}
	l.resetInserts()
	return l.countRefs()
}

// refreshRecords is Refresh's part under the log's lock; refreshed is
// false when batches were in flight.
func (l *Log) refreshRecords(full bool) (refreshed bool, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.inflight) > 0 {
		return false, nil
	}
	trimmed := l.trimmed
	v, err := l.store.Get(trimKey)
	switch {
	case err == nil && len(v) == 8:
		trimmed = binary.BigEndian.Uint64(v)
	case err != nil && !errors.Is(err, storage.ErrNotFound):
		return false, fmt.Errorf("events: refresh: %w", err)
	}
	from := Key(l.last + 1)
	if full || trimmed != l.trimmed {
		from, l.bytes = keyPrefix, 0
	}
	it, err := l.store.NewIter(from, storage.PrefixEnd(keyPrefix))
	if err != nil {
		return false, fmt.Errorf("events: refresh: %w", err)
	}
	for ok := it.First(); ok; ok = it.Next() {
		l.bytes += int64(len(it.Key()) + len(it.Value()))
	}
	if it.Last() {
		first, n, err := entryCount(it.Key(), it.Value())
		if err != nil {
			it.Close()
			return false, fmt.Errorf("events: refresh: %w", err)
		}
		if last := first + uint64(n) - 1; last > l.last {
			l.last = last
		}
	}
	if err := errors.Join(it.Error(), it.Close()); err != nil {
		return false, fmt.Errorf("events: refresh: %w", err)
	}
	l.trimmed = trimmed
	l.advance()
	return true, nil
}
