package kv_test

import (
	"strconv"
	"testing"
	"time"

	"github.com/mayfly/mayfly/internal/expiry"
	"github.com/mayfly/mayfly/internal/kv"
)

// BenchmarkDBSizeAfterReap measures DBSIZE once the sweeper has deleted
// 190,000 of 200,000 keys that fell due together, before any compaction:
// the count of due keys must not step over the deleted ones.
func BenchmarkDBSizeAfterReap(b *testing.B) {
	s, _, c, _, _ := newStore(b)
	at := c.Now().UnixMilli() + 1
	tx := s.Begin()
	for i := range 200_000 {
		if _, err := tx.Set([]byte("k"+strconv.Itoa(i)), []byte("v"), kv.SetOptions{ExpireAt: at}); err != nil {
			b.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
	c.Advance(time.Second)
	src := s.Sources()[0]
	for left := 190_000; left > 0; left -= 1000 {
		if _, err := expiry.Drain(b.Context(), src, c.Now(), 1000, 1000); err != nil {
			b.Fatal(err)
		}
	}
	for b.Loop() {
		tx := s.Begin()
		if n, err := tx.DBSize(); err != nil || n != 0 {
			b.Fatal(n, err)
		}
		tx.Rollback()
	}
}
