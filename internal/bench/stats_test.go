package bench

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

func ms(xs ...float64) []time.Duration {
	out := make([]time.Duration, len(xs))
	for i, x := range xs {
		out[i] = time.Duration(x * float64(time.Millisecond))
	}
	return out
}

// Ensure that Percentile follows the nearest-rank definition.
func TestPercentile(t *testing.T) {
	hundred := make([]time.Duration, 100)
	for i := range hundred {
		hundred[i] = time.Duration(i+1) * time.Millisecond
	}
	tests := map[string]struct {
		sorted []time.Duration
		q      float64
		want   time.Duration
	}{
		"empty":               {nil, 0.5, 0},
		"one sample":          {ms(7), 0.99, 7 * time.Millisecond},
		"median of four":      {ms(1, 2, 3, 4), 0.5, 2 * time.Millisecond},
		"p99 of 100":          {hundred, 0.99, 99 * time.Millisecond},
		"p999 of 100 is max":  {hundred, 0.999, 100 * time.Millisecond},
		"p50 of 100":          {hundred, 0.50, 50 * time.Millisecond},
		"q of 1 is max":       {ms(1, 2, 3), 1, 3 * time.Millisecond},
		"q of 0 is min":       {ms(1, 2, 3), 0, time.Millisecond},
		"q past 1 is clamped": {ms(1, 2, 3), 2, 3 * time.Millisecond},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if got := Percentile(tc.sorted, tc.q); got != tc.want {
				t.Fatalf("Percentile(q=%v) = %v, want %v", tc.q, got, tc.want)
			}
		})
	}
}

// Ensure that Median takes the middle value, or the mean of the two middle
// ones, and leaves its input alone.
func TestMedian(t *testing.T) {
	tests := map[string]struct {
		in   []float64
		want float64
	}{
		"odd":      {[]float64{5, 1, 3}, 3},
		"even":     {[]float64{4, 1, 3, 2}, 2.5},
		"one":      {[]float64{9}, 9},
		"repeated": {[]float64{2, 2, 7}, 2},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			in := slices.Clone(tc.in)
			if got := Median(in); got != tc.want {
				t.Fatalf("Median(%v) = %v, want %v", tc.in, got, tc.want)
			}
			if !slices.Equal(in, tc.in) {
				t.Fatalf("Median reordered its input: %v", in)
			}
		})
	}
	if !math.IsNaN(Median(nil)) {
		t.Fatal("Median(nil) is not NaN")
	}
}

// Ensure that Summarize reports count, p50, p99, p999 and max.
func TestSummarize(t *testing.T) {
	samples := make([]time.Duration, 1000)
	for i := range samples {
		samples[i] = time.Duration(1000-i) * time.Microsecond // reversed: Summarize sorts
	}
	got := Summarize(samples)
	want := Latencies{Count: 1000, P50: 500 * time.Microsecond, P99: 990 * time.Microsecond, P999: 999 * time.Microsecond, Max: time.Millisecond}
	if got != want {
		t.Fatalf("Summarize = %+v, want %+v", got, want)
	}
	if (Summarize(nil) != Latencies{}) {
		t.Fatal("Summarize(nil) is not zero")
	}
}

// Ensure that the histogram's buckets tile the values: each value falls in
// a bucket whose upper bound is at or above it and within 1/128 of it.
func TestHistogramBuckets(t *testing.T) {
	values := []int64{0, 1, 127, 128, 129, 255, 256, 257, 1000, 1 << 20, 123456789, 10 * int64(time.Second), math.MaxInt64 / 2}
	for _, v := range values {
		b := bucketOf(v)
		hi := bucketHigh(b)
		if hi < v {
			t.Errorf("value %d: bucket %d ends at %d, below it", v, b, hi)
		}
		if v > 0 && float64(hi-v)/float64(v) > 1.0/128 {
			t.Errorf("value %d: bucket %d ends at %d, more than 1/128 above", v, b, hi)
		}
		if b > 0 && bucketHigh(b-1) >= v {
			t.Errorf("value %d: the bucket before %d already reaches %d", v, b, bucketHigh(b-1))
		}
	}
}

// Ensure that histogram quantiles agree with exact percentiles within the
// bucket precision, and that Merge equals recording everything in one.
func TestHistogramMatchesExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var a, b, all Histogram
	var exact []time.Duration
	for i := range 20000 {
		// Log-normal-ish: mostly ~100µs with a tail to ~100ms.
		d := time.Duration(math.Exp(rng.NormFloat64()*1.5) * float64(100*time.Microsecond))
		exact = append(exact, d)
		all.Record(d)
		if i%2 == 0 {
			a.Record(d)
		} else {
			b.Record(d)
		}
	}
	a.Merge(&b)
	slices.Sort(exact)
	for _, q := range []float64{0.5, 0.9, 0.99, 0.999, 1} {
		want := Percentile(exact, q)
		got := all.Quantile(q)
		if got < want || float64(got-want) > float64(want)/128+1 {
			t.Errorf("q=%v: histogram %v, exact %v", q, got, want)
		}
		if m := a.Quantile(q); m != got {
			t.Errorf("q=%v: merged histogram %v, single %v", q, m, got)
		}
	}
	if s := all.Summary(); s.Max != exact[len(exact)-1] || s.Count != int64(len(exact)) {
		t.Errorf("Summary max %v count %d, want %v and %d", s.Max, s.Count, exact[len(exact)-1], len(exact))
	}
	var empty Histogram
	if (empty.Summary() != Latencies{}) {
		t.Error("empty histogram's summary is not zero")
	}
}
