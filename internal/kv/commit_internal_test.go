package kv

import (
	"errors"
	"testing"
	"time"

	"github.com/mayfly/mayfly/internal/storage"
)

func openCommitStore(t *testing.T) (*Store, *storage.Store) {
	t.Helper()
	st, err := storage.Open(storage.Options{Dir: "mem", InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	s, err := Open(t.Context(), Options{Store: st, Now: func() time.Time { return time.UnixMilli(1_000_000) }})
	if err != nil {
		t.Fatal(err)
	}
	return s, st
}

// TestReadOnlyCommitWaitsForApply: a Tx that read a write from memory
// (a metadata cache hit) while that write's batch is still being applied
// does not return from Commit before the batch is in storage.
func TestReadOnlyCommitWaitsForApply(t *testing.T) {
	s, st := openCommitStore(t)
	tx := s.Begin()
	if _, err := tx.Set([]byte("k"), []byte("old"), SetOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}

	entered := make(chan struct{})
	release := make(chan struct{})
	s.applyHook = func() error {
		close(entered)
		<-release
		return nil
	}
	writerDone := make(chan error)
	go func() {
		tx := s.Begin()
		if _, err := tx.Set([]byte("k"), []byte("new"), SetOptions{}); err != nil {
			tx.Rollback()
			writerDone <- err
			return
		}
		writerDone <- tx.Commit()
	}()
	<-entered // the writer has published and is applying (blocked in the hook)

	type result struct {
		val    string
		stored string
		err    error
	}
	readerRead := make(chan struct{})
	readerDone := make(chan result)
	go func() {
		tx := s.Begin() // the store is free while the writer applies
		v, _, err := tx.Get([]byte("k"))
		if err != nil {
			tx.Rollback()
			readerDone <- result{err: err}
			return
		}
		close(readerRead)
		err = tx.Commit()
		r := result{val: string(v), err: err}
		if got, gerr := st.Get(metaKey(nil, 0, []byte("k"))); gerr == nil {
			m, derr := decodeMeta(got)
			if derr == nil {
				r.stored = string(m.Payload)
			}
		}
		readerDone <- r
	}()
	// The reader has read the cached value and is committing: let the
	// writer's apply finish. The reader must not have returned before.
	var r result
	select {
	case <-readerRead:
	case r = <-readerDone:
		t.Fatalf("reader ended before reading: %v", r.err)
	}
	close(release)
	r = <-readerDone
	if err := <-writerDone; err != nil {
		t.Fatalf("writer: %v", err)
	}
	if r.err != nil {
		t.Fatalf("reader: %v", r.err)
	}
	if r.val != "new" {
		t.Fatalf("reader read %q, want the cached uncommitted %q", r.val, "new")
	}
	if r.stored != "new" {
		t.Fatalf("when the reader's Commit returned storage held %q, want %q", r.stored, "new")
	}
}

// TestApplyFailureIsFailStop: a batch that cannot be applied fails its
// Commit with ErrFailed, and the store refuses every later Commit and
// Keyspace with the same error instead of serving the published state.
func TestApplyFailureIsFailStop(t *testing.T) {
	s, _ := openCommitStore(t)
	boom := errors.New("disk on fire")
	s.applyHook = func() error { return boom }
	tx := s.Begin()
	if _, err := tx.Set([]byte("k"), []byte("v"), SetOptions{}); err != nil {
		t.Fatal(err)
	}
	err := tx.Commit()
	if !errors.Is(err, ErrFailed) || !errors.Is(err, boom) {
		t.Fatalf("Commit = %v, want ErrFailed wrapping the storage error", err)
	}
	if !errors.Is(s.Err(), boom) {
		t.Fatalf("Err() = %v", s.Err())
	}
	s.applyHook = nil // storage works again; the store stays failed
	tests := []struct {
		name string
		run  func() error
	}{
		{"read-only commit", func() error {
			tx := s.Begin()
			if _, _, err := tx.Get([]byte("k")); err != nil {
				tx.Rollback()
				return err
			}
			return tx.Commit()
		}},
		{"write commit", func() error {
			tx := s.Begin()
			if _, err := tx.Set([]byte("j"), []byte("v"), SetOptions{}); err != nil {
				tx.Rollback()
				return err
			}
			return tx.Commit()
		}},
		{"keyspace", func() error { _, err := s.Keyspace(t.Context()); return err }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.run(); !errors.Is(err, ErrFailed) {
				t.Fatalf("got %v, want ErrFailed", err)
			}
		})
	}
}
