package kv

import (
	"errors"
	"testing"
	"time"

	"github.com/mayfly/mayfly/internal/storage"
)

// reopen opens a new Store on cs's storage, as a restart does.
func (cs *checkStore) reopen(t *testing.T) *Store {
	t.Helper()
	cs.waitApplied()
	s, err := Open(t.Context(), Options{Store: cs.st, Now: func() time.Time { return time.UnixMilli(cs.now) }})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// forgetStoredCounters deletes the stored counters and version mark, as a
// store written before they were kept lacks them.
func (cs *checkStore) forgetStoredCounters(t *testing.T) {
	t.Helper()
	cs.write(t, func(b *storage.Batch) error {
		for pdb := range NumDBs {
			if err := b.Delete(countersKey(byte(pdb))); err != nil {
				return err
			}
		}
		return b.Delete(versionKey())
	})
}

// Ensure that a reopened store has exactly the counters of the store
// before it, for every database, after writes of every type, a FLUSHDB and
// a SWAPDB, and that they are the stored ones, not a recount: a key
// deleted behind kv's back is still counted until the stored counters are
// removed, which makes Open scan again.
func TestStoredCountersSurviveReopen(t *testing.T) {
	cs := openCheckStore(t)
	populate(t, cs)
	cs.run(t, 5, func(tx *Tx) error {
		_, err := tx.Set([]byte("x"), []byte("v"), SetOptions{ExpireAt: cs.now + 60_000})
		return err
	})
	cs.run(t, 5, func(tx *Tx) error { return tx.FlushDB() })
	cs.run(t, 5, func(tx *Tx) error {
		_, err := tx.Set([]byte("after-flush"), []byte("v"), SetOptions{})
		return err
	})
	want := cs.c
	wantVersion := cs.version

	s := cs.reopen(t)
	if s.c != want {
		t.Fatalf("reopened counters = %+v\nwant %+v", s.c, want)
	}
	if s.version != wantVersion {
		t.Fatalf("reopened version mark = %d, want %d", s.version, wantVersion)
	}
	if err := s.Check(t.Context()); err != nil {
		t.Fatalf("reopened store: %v", err)
	}

	pdb := s.dbmap[5]
	cs.write(t, func(b *storage.Batch) error { return b.Delete(metaKey(nil, pdb, []byte("after-flush"))) })
	s = cs.reopen(t)
	if got := s.c[pdb].keys; got != 1 {
		t.Fatalf("keys of db 5 after a record vanished behind kv = %d, want the stored 1 (Open must not scan)", got)
	}
	var ce *CheckError
	if err := s.Check(t.Context()); !errors.As(err, &ce) || !ce.Has(ProblemCounters) {
		t.Fatalf("Check = %v, want the stored counters reported", err)
	}

	cs.write(t, func(b *storage.Batch) error { return b.Delete(countersKey(pdb)) })
	s = cs.reopen(t)
	if got := s.c[pdb].keys; got != 0 {
		t.Fatalf("keys of db 5 rescanned = %d, want 0", got)
	}
	if err := s.Check(t.Context()); err != nil {
		t.Fatalf("rescanned store: %v", err)
	}
}

// Ensure that a stored counters record of another format makes Open scan,
// and that the scan stores records Open reads the next time.
func TestStoredCountersOtherFormatRescanned(t *testing.T) {
	cs := openCheckStore(t)
	populate(t, cs)
	want := cs.c
	v := want[0].encode(nil)
	v[0] = countersFormat + 1
	v[1] = 0x7f // nonsense a reader of this format must not take
	cs.write(t, func(b *storage.Batch) error { return b.Set(countersKey(0), v) })
	s := cs.reopen(t)
	if s.c != want {
		t.Fatalf("rescanned counters = %+v\nwant %+v", s.c, want)
	}
	stored, err := cs.st.Get(countersKey(0))
	if err != nil {
		t.Fatal(err)
	}
	if c, ok := decodeCounters(stored); !ok || c != want[0] {
		t.Fatalf("stored after the scan: %+v, %v; want %+v", c, ok, want[0])
	}
}

// Ensure that the stored version mark keeps a version from being handed
// out twice when no sub-key names it: an emptied stream keeps its record
// and version but may own no element.
func TestStoredVersionMark(t *testing.T) {
	cs := openCheckStore(t)
	var first uint64
	cs.run(t, 0, func(tx *Tx) error {
		first = tx.NewVersion()
		tx.NewVersion()
		return nil
	})
	s := cs.reopen(t)
	tx := s.Begin()
	got := tx.NewVersion()
	tx.Rollback()
	if got <= first+1 {
		t.Fatalf("version after reopen = %d, want above %d", got, first+1)
	}
}

// Ensure that a commit that never reached storage (the process died, or
// the apply failed) leaves stored counters that agree with the stored
// keys: the next Open counts what is stored, not what the lost commit
// published in memory.
func TestStoredCountersExactAfterLostCommit(t *testing.T) {
	cs := openCheckStore(t)
	cs.run(t, 0, func(tx *Tx) error {
		_, err := tx.Set([]byte("kept"), []byte("v"), SetOptions{ExpireAt: cs.now + 60_000})
		return err
	})
	cs.applyHook = func() error { return errors.New("disk on fire") }
	tx := cs.Begin()
	if _, err := tx.Set([]byte("lost"), []byte("v"), SetOptions{ExpireAt: cs.now + 90_000}); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Push([]byte("lost-list"), ListRight, false, bs("a")); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err == nil {
		t.Fatal("a commit whose apply failed succeeded")
	}
	if got := cs.c[0].keys; got != 3 {
		t.Fatalf("published keys = %d, want 3 (the failed commit published its counters)", got)
	}
	s := cs.reopen(t)
	pdb := s.dbmap[0]
	if got := s.c[pdb]; got.keys != 1 || got.expires != 1 || got.expSum != (i128{lo: uint64(cs.now + 60_000)}) {
		t.Fatalf("reopened counters = %+v, want the one stored key with its expiry", got)
	}
	if err := s.Check(t.Context()); err != nil {
		t.Fatalf("reopened store: %v", err)
	}
}
