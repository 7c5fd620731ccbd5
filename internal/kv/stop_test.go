package kv_test

import (
	"errors"
	"strconv"
	"testing"

	"github.com/mayfly/mayfly/internal/kv"
)

// TestStopOnEndsLongWalks: once the channel given to StopOn is closed,
// KEYS, SCAN and the collection scans give up with ErrStopped instead of
// walking on; before, they see everything.
func TestStopOnEndsLongWalks(t *testing.T) {
	s, _, _, _, _ := newStore(t)
	const n = 2000
	do(t, s, func(tx *kv.Tx) error {
		members := make([][]byte, 0, n)
		for i := range n {
			k := []byte("k" + strconv.Itoa(i))
			if _, err := tx.Set(k, []byte("v"), kv.SetOptions{}); err != nil {
				return err
			}
			members = append(members, k)
		}
		_, err := tx.SAdd([]byte("set"), members)
		return err
	})
	open := make(chan struct{})
	do(t, s, func(tx *kv.Tx) error {
		tx.StopOn(open)
		keys, err := tx.Keys([]byte("k*"))
		if err != nil || len(keys) != n {
			t.Fatalf("KEYS before stop: %d keys, %v", len(keys), err)
		}
		return nil
	})
	stopped := make(chan struct{})
	close(stopped)
	tx := s.Begin()
	defer tx.Rollback()
	tx.StopOn(stopped)
	if _, err := tx.Keys([]byte("k*")); !errors.Is(err, kv.ErrStopped) {
		t.Fatalf("KEYS after stop: %v", err)
	}
	if _, _, err := tx.Scan(0, kv.ScanOptions{Count: n}); !errors.Is(err, kv.ErrStopped) {
		t.Fatalf("SCAN after stop: %v", err)
	}
	if _, _, err := tx.SScan([]byte("set"), 0, kv.CollScanOptions{Count: n}); !errors.Is(err, kv.ErrStopped) {
		t.Fatalf("SSCAN after stop: %v", err)
	}
}
