package kv

import (
	"errors"
	"testing"
	"time"

	"github.com/mayfly/mayfly/internal/expiry"
	"github.com/mayfly/mayfly/internal/storage"
)

// expiryLogStore opens a store with the expiry log on, holding, written
// at 500 (Unix ms), the key "a" and the hash field "h" "f", both due at
// 1000.
func expiryLogStore(t *testing.T, st *storage.Store) *Store {
	t.Helper()
	s, err := Open(t.Context(), Options{Store: st, Now: func() time.Time { return time.UnixMilli(500) }})
	if err != nil {
		t.Fatal(err)
	}
	s.SetExpiryLog(ExpiryLog{Key: []byte("exp"), NodeEntries: 100})
	tx := s.Begin()
	if _, err := tx.Set([]byte("a"), []byte("v"), SetOptions{ExpireAt: 1000}); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.HSet([]byte("h"), [][]byte{[]byte("f"), []byte("1"), []byte("g"), []byte("2")}); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.HExpire([]byte("h"), 1000, HExpireAlways, [][]byte{[]byte("f")}); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	return s
}

// reapAll runs the key and field sources of db 0 at now.
func reapAll(t *testing.T, s *Store, now int64) error {
	t.Helper()
	for _, src := range []expiry.Source{s.Sources()[0], s.FieldSources()[0]} {
		if _, err := src.ReapBatch(t.Context(), time.UnixMilli(now), expiry.Batch{Max: 100}); err != nil {
			return err
		}
	}
	return nil
}

// stored reads, from a store opened afresh on st, whether "a" and the
// field "h" "f" exist and how many entries "exp" holds.
func stored(t *testing.T, st *storage.Store, now int64) (a, f bool, logged int64) {
	t.Helper()
	s, err := Open(t.Context(), Options{Store: st, Now: func() time.Time { return time.UnixMilli(now) }})
	if err != nil {
		t.Fatal(err)
	}
	tx := s.Begin()
	defer tx.Rollback()
	// Reading at a time before the expiry: what storage holds, not hidden.
	tx.SetNow(time.UnixMilli(500))
	_, a, err = tx.Get([]byte("a"))
	if err != nil {
		t.Fatal(err)
	}
	v, err := tx.HMGet([]byte("h"), [][]byte{[]byte("f")})
	if err != nil {
		t.Fatal(err)
	}
	if logged, err = tx.XLen([]byte("exp")); err != nil {
		t.Fatal(err)
	}
	return a, v[0] != nil, logged
}

// TestExpiryLogInTheDeletionsBatch: each reap writes the deletion and its
// entry in one batch: after a commit both are in storage, and when the
// batch fails to apply neither is.
func TestExpiryLogInTheDeletionsBatch(t *testing.T) {
	now := int64(2000)
	t.Run("committed", func(t *testing.T) {
		st := memStorage(t)
		s := expiryLogStore(t, st)
		applies := 0
		s.applyHook = func() error { applies++; return nil }
		if err := reapAll(t, s, now); err != nil {
			t.Fatal(err)
		}
		if applies != 2 {
			t.Fatalf("%d batches applied, want 2 (one per source)", applies)
		}
		if a, f, n := stored(t, st, now); a || f || n != 2 {
			t.Fatalf("after reopening: key %v, field %v, %d entries; want gone, gone, 2", a, f, n)
		}
	})
	t.Run("failed", func(t *testing.T) {
		st := memStorage(t)
		s := expiryLogStore(t, st)
		boom := errors.New("disk on fire")
		s.applyHook = func() error { return boom }
		if err := reapAll(t, s, now); !errors.Is(err, boom) {
			t.Fatalf("reap = %v, want the apply's error", err)
		}
		if a, f, n := stored(t, st, now); !a || !f || n != 0 {
			t.Fatalf("after reopening: key %v, field %v, %d entries; want both kept and no entry", a, f, n)
		}
	})
}

func memStorage(t *testing.T) *storage.Store {
	t.Helper()
	st, err := storage.Open(storage.Options{Dir: "mem", InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}
