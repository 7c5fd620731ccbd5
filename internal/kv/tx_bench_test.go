package kv_test

import (
	"strconv"
	"testing"
	"time"

	"github.com/mayfly/mayfly/internal/kv"
	"github.com/mayfly/mayfly/internal/storage"
)

// benchStore opens an in-memory store with no observer (a test recorder
// would be most of the cost) and the metadata cache on or off.
func benchStore(b *testing.B, cache bool) *kv.Store {
	b.Helper()
	st, err := storage.Open(storage.Options{Dir: "mem", InMemory: true})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	opts := kv.Options{Store: st, Now: time.Now}
	if !cache {
		opts.MetaCacheSize = -1
	}
	s, err := kv.Open(b.Context(), opts)
	if err != nil {
		b.Fatal(err)
	}
	return s
}

func benchKeys() [][]byte {
	keys := make([][]byte, 100_000)
	for i := range keys {
		keys[i] = []byte("key:" + strconv.Itoa(i))
	}
	return keys
}

// BenchmarkTxSet measures SET on 100,000 keys, one command per Tx (an
// unpipelined client) and sixteen per Tx (a pipeline of 16), with the
// metadata cache and without.
func BenchmarkTxSet(b *testing.B) {
	for _, cache := range []bool{true, false} {
		for _, perTx := range []int{1, 16} {
			b.Run("cache="+strconv.FormatBool(cache)+"/perTx="+strconv.Itoa(perTx), func(b *testing.B) {
				s := benchStore(b, cache)
				keys := benchKeys()
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
}

// BenchmarkTxGet measures GET of 100,000 existing keys, sixteen per Tx,
// with the metadata cache and without.
func BenchmarkTxGet(b *testing.B) {
	for _, cache := range []bool{true, false} {
		b.Run("cache="+strconv.FormatBool(cache), func(b *testing.B) {
			s := benchStore(b, cache)
			keys := benchKeys()
			tx := s.Begin()
			for _, k := range keys {
				if _, err := tx.Set(k, []byte("xxx"), kv.SetOptions{}); err != nil {
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
		})
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
