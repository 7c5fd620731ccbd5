package expiry_test

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/mayfly/mayfly/internal/expiry"
)

// hist builds a histogram snapshot from lags by way of the bucket bounds.
func hist(lags ...time.Duration) expiry.Histogram {
	b := expiry.LagBounds()
	h := expiry.Histogram{Bounds: b, Counts: make([]uint64, len(b)+1)}
	for _, d := range lags {
		i := 0
		for i < len(b) && b[i] < d {
			i++
		}
		h.Counts[i]++
		h.Count++
		h.Sum += d
		h.Max = max(h.Max, d)
	}
	return h
}

func repeat(d time.Duration, n int) []time.Duration {
	out := make([]time.Duration, n)
	for i := range out {
		out[i] = d
	}
	return out
}

func TestLagBounds(t *testing.T) {
	b := expiry.LagBounds()
	if b[0] != time.Millisecond || b[2] != 2*time.Millisecond || b[len(b)-1] < time.Hour || b[len(b)-1] > 2*time.Hour {
		t.Fatalf("bounds from %v to %v, want 1ms .. about 1h", b[0], b[len(b)-1])
	}
	for i := 1; i < len(b); i++ {
		if b[i] <= b[i-1] {
			t.Fatalf("bounds not increasing at %d: %v", i, b[i-1:i+1])
		}
	}
}

func TestHistogramQuantile(t *testing.T) {
	tests := []struct {
		name          string
		h             expiry.Histogram
		q             float64
		want          time.Duration
		wantLo, wantH time.Duration // when want is 0: an inclusive range
	}{
		{name: "empty", h: hist(), q: 0.5, want: 0},
		{name: "p50 inside one bucket", h: hist(repeat(5*time.Millisecond, 100)...), q: 0.5, want: 4500 * time.Microsecond},
		{name: "p99 capped by max", h: hist(repeat(5*time.Millisecond, 100)...), q: 0.99, want: 4990 * time.Microsecond},
		{name: "max", h: hist(repeat(5*time.Millisecond, 100)...), q: 1, want: 5 * time.Millisecond},
		{name: "zero lags", h: hist(repeat(0, 10)...), q: 0.99, want: 0},
		{name: "p50 of a mix", h: hist(append(repeat(time.Second, 100), 10*time.Second)...), q: 0.5,
			wantLo: 724 * time.Millisecond, wantH: 1024 * time.Millisecond},
		{name: "p99 of a mix", h: hist(append(repeat(10*time.Millisecond, 90), repeat(time.Minute, 10)...)...), q: 0.99,
			wantLo: 46 * time.Second, wantH: time.Minute},
		{name: "overflow bucket ends at max", h: hist(3*time.Hour, 3*time.Hour), q: 0.5,
			wantLo: 70 * time.Minute, wantH: 3 * time.Hour},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.h.Quantile(tc.q)
			if tc.wantLo == 0 && tc.wantH == 0 {
				if got != tc.want {
					t.Errorf("Quantile(%v) = %v, want %v", tc.q, got, tc.want)
				}
				return
			}
			if got < tc.wantLo || got > tc.wantH {
				t.Errorf("Quantile(%v) = %v, want %v..%v", tc.q, got, tc.wantLo, tc.wantH)
			}
		})
	}
}

func TestHistogramMerge(t *testing.T) {
	a := hist(time.Millisecond, 2*time.Second)
	b := hist(3 * time.Second)
	m := a.Merge(b)
	if m.Count != 3 || m.Sum != time.Millisecond+5*time.Second || m.Max != 3*time.Second {
		t.Fatalf("merged %+v", m)
	}
	if a.Count != 2 {
		t.Fatal("Merge modified its receiver")
	}
	if z := (expiry.Histogram{}).Merge(b); z.Count != 1 {
		t.Fatalf("zero.Merge = %+v", z)
	}
}

func TestLagRecordedPerSourceAndKind(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, nil)
		t0 := h.clk.Now()
		keys := newFake("redis_keys:db0", expiry.KindRedisKeys, h.clk)
		keys.addN(100, t0.Add(-time.Second))
		keys.add(t0.Add(-10 * time.Second))
		idx := newFake("ttl_index:a.b.c_1", expiry.KindTTLIndex, h.clk)
		idx.add(t0.Add(-time.Hour))
		h.register(keys, idx)
		h.start()
		defer h.stop()

		st := h.e.Stats()
		k := st.Kind(expiry.KindRedisKeys).Lag
		if k.Count != 101 || k.Max != 10*time.Second {
			t.Fatalf("redis_keys lag count %d max %v, want 101 and 10s", k.Count, k.Max)
		}
		if p := k.P50(); p <= 724*time.Millisecond || p > 1024*time.Millisecond {
			t.Errorf("p50 %v, want in the bucket (724ms, 1024ms]", p)
		}
		if p := k.P99(); p <= 724*time.Millisecond || p > 1024*time.Millisecond {
			t.Errorf("p99 %v, want in the bucket (724ms, 1024ms] (rank 99.99 of 101)", p)
		}
		s, ok := st.Source("redis_keys:db0")
		if !ok || s.Lag.Count != 101 || s.Lag.Sum != 110*time.Second {
			t.Errorf("source lag %+v", s.Lag)
		}
		if st.Lag.Count != 102 || st.Lag.Max != time.Hour {
			t.Errorf("total lag count %d max %v, want 102 and 1h", st.Lag.Count, st.Lag.Max)
		}
		if got := st.Kind(expiry.KindPolicy); got.DeletedItems != 0 || got.Lag.Count != 0 {
			t.Errorf("policy kind %+v, want empty", got)
		}
	})
}
