package kv_test

import (
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/mayfly/mayfly/internal/expiry"
	"github.com/mayfly/mayfly/internal/kv"
)

// BenchmarkReapStorm measures deleting keys that all fall due at the same
// instant, as the engine calls Reap: one batch per call, the same now for
// the whole pass, with the batch sizes the engine uses at full speed (1,000)
// and when it shortens its storage batches so that clients waiting for the
// store's lock get it sooner.
func BenchmarkReapStorm(b *testing.B) {
	const n = 100_000
	for _, batch := range []int{1000, 100, 25} {
		b.Run(fmt.Sprintf("batch=%d", batch), func(b *testing.B) {
			var cpu time.Duration
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
				cpu0 := cpuTime()
				deleted := 0
				for {
					r, err := expiry.Drain(b.Context(), src, c.Now(), batch, batch)
					if err != nil {
						b.Fatal(err)
					}
					deleted += r.Items
					if !r.More {
						break
					}
				}
				cpu += cpuTime() - cpu0
				if deleted != n {
					b.Fatalf("deleted %d, want %d", deleted, n)
				}
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "keys/s")
			b.ReportMetric(float64(cpu.Nanoseconds())/1000/float64(n*b.N), "cpu-us/key")
		})
	}
}

// cpuTime is the CPU time (user and system) the process has used so far:
// on a shared machine it moves far less with other load than wall time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
