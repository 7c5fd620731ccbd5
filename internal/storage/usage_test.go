package storage

import (
	"fmt"
	"testing"
)

// Ensure that the disk use of a keyspace counts its sstables, and that the
// bytes waiting for a purge cover a flushed keyspace whose keys were
// deleted, and none once purged.
func TestUsage(t *testing.T) {
	s, err := Open(Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	b := s.NewBatch()
	for i := range 2000 {
		if err := b.Set(Key(PrefixDocument, fmt.Appendf(nil, "doc%06d", i)), make([]byte, 100)); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	usage, err := s.KeyspaceUsage()
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range usage {
		if (u.Prefix == PrefixDocument) != (u.Bytes > 0) && u.Prefix != PrefixMeta {
			t.Errorf("keyspace %s uses %d bytes", u.Name, u.Bytes)
		}
	}
	if n, err := s.PendingPurgeBytes(); err != nil || n != 0 {
		t.Fatalf("before any deletion %d bytes wait for a purge (%v)", n, err)
	}
	b = s.NewBatch()
	for i := range 2000 {
		if err := b.Delete(Key(PrefixDocument, fmt.Appendf(nil, "doc%06d", i))); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	if n, err := s.PendingPurgeBytes(); err != nil || n == 0 {
		t.Fatalf("after the deletion %d bytes wait for a purge (%v)", n, err)
	}
	if err := s.Purge(t.Context()); err != nil {
		t.Fatal(err)
	}
	if n, err := s.PendingPurgeBytes(); err != nil || n != 0 {
		t.Fatalf("after the purge %d bytes wait for one (%v)", n, err)
	}
}
