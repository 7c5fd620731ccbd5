package kv_test

import (
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/mayfly/mayfly/internal/kv"
)

// BenchmarkTxSetParallel measures SET from concurrent clients, sixteen per
// Tx (redis-benchmark -P 16), where one Tx's storage apply overlaps the
// next Tx's execution (commit.go).
func BenchmarkTxSetParallel(b *testing.B) {
	for _, perTx := range []int{1, 16} {
		b.Run("perTx="+strconv.Itoa(perTx), func(b *testing.B) {
			s := benchStore(b, true)
			keys := benchKeys()
			val := []byte("xxx")
			var next atomic.Int64
			b.ReportAllocs()
			b.SetParallelism(4)
			b.RunParallel(func(pb *testing.PB) {
				i := int(next.Add(7919))
				for pb.Next() {
					tx := s.Begin()
					for range perTx {
						if _, err := tx.Set(keys[i%len(keys)], val, kv.SetOptions{}); err != nil {
							b.Error(err)
						}
						i++
					}
					if err := tx.Commit(); err != nil {
						b.Error(err)
					}
				}
			})
		})
	}
}
