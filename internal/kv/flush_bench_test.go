package kv_test

import (
	"strconv"
	"testing"

	"github.com/mayfly/mayfly/internal/kv"
)

// BenchmarkFlushAllLoop measures what an application's test suite does
// between tests: FLUSHALL, then a few writes and reads of a small
// keyspace. A flush must not leave behind work that every later read pays
// for, so the cost per round stays flat however many rounds ran before.
func BenchmarkFlushAllLoop(b *testing.B) {
	s, _, _, _, _ := newStore(b)
	for b.Loop() {
		tx := s.Begin()
		if err := tx.FlushAll(); err != nil {
			b.Fatal(err)
		}
		if err := tx.Commit(); err != nil {
			b.Fatal(err)
		}
		for k := range 10 {
			tx := s.Begin()
			key := []byte("k" + strconv.Itoa(k))
			if _, err := tx.Set(key, []byte("v"), kv.SetOptions{}); err != nil {
				b.Fatal(err)
			}
			if _, _, err := tx.Get(key); err != nil {
				b.Fatal(err)
			}
			if err := tx.Commit(); err != nil {
				b.Fatal(err)
			}
		}
	}
}
