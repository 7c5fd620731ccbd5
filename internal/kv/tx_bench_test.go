package kv_test

import (
	"strconv"
	"testing"

	"github.com/mayfly/mayfly/internal/kv"
)

// BenchmarkTxSet measures SET on 100,000 keys, one command per Tx (an
// unpipelined client) and sixteen per Tx (a pipeline of 16).
func BenchmarkTxSet(b *testing.B) {
	for _, perTx := range []int{1, 16} {
		b.Run("perTx="+strconv.Itoa(perTx), func(b *testing.B) {
			s, _, _, _, _ := newStore(b)
			keys := make([][]byte, 100_000)
			for i := range keys {
				keys[i] = []byte("key:" + strconv.Itoa(i))
			}
			val := []byte("xxx")
			b.ReportAllocs()
			defer reportCPU(b)()
			for i := 0; b.Loop(); {
				tx := s.Begin()
				for range perTx {
					if _, err := tx.Set(keys[i%len(keys)], val, kv.SetOptions{}); err != nil {
						b.Fatal(err)
					}
					i++
				}
				if err := tx.Commit(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkTxGet measures GET of 100,000 existing keys, sixteen per Tx.
func BenchmarkTxGet(b *testing.B) {
	s, _, _, _, _ := newStore(b)
	keys := make([][]byte, 100_000)
	tx := s.Begin()
	for i := range keys {
		keys[i] = []byte("key:" + strconv.Itoa(i))
		if _, err := tx.Set(keys[i], []byte("xxx"), kv.SetOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	defer reportCPU(b)()
	for i := 0; b.Loop(); {
		tx := s.Begin()
		for range 16 {
			if _, ok, err := tx.Get(keys[i%len(keys)]); err != nil || !ok {
				b.Fatal(ok, err)
			}
			i++
		}
		tx.Rollback()
	}
}

// reportCPU reports the process's CPU time per operation (cpu-ns/op) from
// the call to the call of the function it returns: on a shared machine the
// wall time per operation counts the time other processes ran, CPU time
// does not.
func reportCPU(b *testing.B) func() {
	start := cpuTime()
	return func() {
		b.ReportMetric(float64((cpuTime()-start).Nanoseconds())/float64(b.N), "cpu-ns/op")
	}
}
