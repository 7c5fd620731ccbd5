package kv_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/mayfly/mayfly/internal/expiry"
	"github.com/mayfly/mayfly/internal/kv"
)

// BenchmarkReapStorm measures deleting keys that all fall due at the same
// instant, as the engine calls Reap: one batch of 1,000 per call, the same
// now for the whole pass.
func BenchmarkReapStorm(b *testing.B) {
	const n = 100_000
	for b.Loop() {
		b.StopTimer()
		s, _, c, _, _ := newStore(b)
		due := c.Now().UnixMilli() + 1
		for start := 0; start < n; start += 10_000 {
			do(b, s, func(tx *kv.Tx) error {
				for i := start; i < start+10_000; i++ {
					if _, err := tx.Set(fmt.Appendf(nil, "key:%d", i), []byte("v"), kv.SetOptions{ExpireAt: due}); err != nil {
						return err
					}
				}
				return nil
			})
		}
		c.Advance(time.Second)
		src := s.Sources()[0]
		b.StartTimer()
		deleted := 0
		for {
			r, err := src.Reap(b.Context(), c.Now(), expiry.Budget{MaxItems: 1000, BatchSize: 1000})
			if err != nil {
				b.Fatal(err)
			}
			deleted += r.Items
			if !r.More {
				break
			}
		}
		if deleted != n {
			b.Fatalf("deleted %d, want %d", deleted, n)
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "keys/s")
}
