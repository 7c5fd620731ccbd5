package expiry_test

import (
	"testing"
	"time"

	"github.com/mayfly/mayfly/internal/expiry"
)

func BenchmarkWake(b *testing.B) {
	e, err := expiry.New(expiry.DefaultConfig())
	if err != nil {
		b.Fatal(err)
	}
	base := time.Now()
	b.Run("later", func(b *testing.B) {
		// The common case: the item is due after the earliest hint.
		e.Wake(base)
		due := base.Add(time.Hour)
		for b.Loop() {
			e.Wake(due)
		}
	})
	b.Run("earlier", func(b *testing.B) {
		// Every call lowers the hint: one CAS each.
		due := base.Add(-time.Hour)
		for b.Loop() {
			due = due.Add(-time.Millisecond)
			e.Wake(due)
		}
	})
}

func BenchmarkObserveForeground(b *testing.B) {
	e, err := expiry.New(expiry.DefaultConfig())
	if err != nil {
		b.Fatal(err)
	}
	d := 700 * time.Microsecond
	for b.Loop() {
		e.ObserveForeground(d)
	}
}

func BenchmarkObserveForegroundParallel(b *testing.B) {
	e, err := expiry.New(expiry.DefaultConfig())
	if err != nil {
		b.Fatal(err)
	}
	b.RunParallel(func(pb *testing.PB) {
		d := time.Duration(0)
		for pb.Next() {
			d += 997
			e.ObserveForeground(d % (5 * time.Millisecond))
		}
	})
}

// BenchmarkSweep reaps 1,000,000 due items from an in-memory source per
// iteration and reports the engine's throughput (the fake source costs next
// to nothing, so this is the engine's own overhead: budgets, batches, lag
// histograms, counters).
func BenchmarkSweep(b *testing.B) {
	const n = 1_000_000
	clk := &clock{}
	cfg := expiry.DefaultConfig()
	cfg.Now = clk.Now
	cfg.Params.DeleteTargetDocs = 0
	e, err := expiry.New(cfg)
	if err != nil {
		b.Fatal(err)
	}
	src := newFake("redis_keys:db0", expiry.KindRedisKeys, clk)
	if err := e.Register(src); err != nil {
		b.Fatal(err)
	}
	var reaping time.Duration
	var items int64
	for b.Loop() {
		src.addN(n, clk.Now().Add(-time.Second))
		src.calls = nil
		start := time.Now()
		e.PassForTest(b.Context())
		reaping += time.Since(start)
		items += n
		if src.len() != 0 {
			b.Fatalf("%d left", src.len())
		}
	}
	b.ReportMetric(float64(items)/reaping.Seconds(), "items/s")
}
