package storage

import (
	"fmt"
	"sort"
)

// KeyspaceUsage is the estimated disk use of one keyspace.
type KeyspaceUsage struct {
	Prefix byte
	Name   string
	Bytes  uint64
}

// KeyspaceUsage estimates the bytes on disk of every registered keyspace
// from the sstables overlapping it (the memtables are not counted), sorted
// by prefix.
func (s *Store) KeyspaceUsage() ([]KeyspaceUsage, error) {
	out := make([]KeyspaceUsage, 0, len(PrefixNames))
	for p, name := range PrefixNames {
		n, err := s.db.EstimateDiskUsage([]byte{p}, []byte{p + 1})
		if err != nil {
			return nil, fmt.Errorf("storage: disk usage of %s: %w", name, err)
		}
		out = append(out, KeyspaceUsage{Prefix: p, Name: name, Bytes: n})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Prefix < out[j].Prefix })
	return out, nil
}

// PendingPurgeBytes estimates the bytes on disk that may still hold
// deleted data: those of the sstables overlapping the spans waiting for a
// purge cycle. It is an upper bound, as those files hold live data too.
func (s *Store) PendingPurgeBytes() (uint64, error) {
	s.purge.mu.Lock()
	spans := make([]purgeSpan, len(s.purge.spans))
	copy(spans, s.purge.spans)
	s.purge.mu.Unlock()
	var total uint64
	for _, sp := range spans {
		end := sp.end
		if end == nil {
			end = []byte{0xff}
		}
		n, err := s.db.EstimateDiskUsage(sp.start, end)
		if err != nil {
			return 0, fmt.Errorf("storage: disk usage of a purge span: %w", err)
		}
		total += n
	}
	return total, nil
}

// SpanUsage estimates the bytes on disk of the keys in [start, end) from
// the sstables overlapping it (the memtables are not counted).
func (s *Store) SpanUsage(start, end []byte) (uint64, error) {
	n, err := s.db.EstimateDiskUsage(start, end)
	if err != nil {
		return 0, fmt.Errorf("storage: disk usage of a span: %w", err)
	}
	return n, nil
}
