package expiry

import (
	"math"
	"sort"
	"time"
)

// lagBounds are the inclusive upper bounds of the lag histogram's buckets:
// 1ms × 2^(i/2) for i = 0..44, from 1ms to about 70 minutes, two buckets per
// doubling. A last, unbounded bucket holds longer lags.
var lagBounds = func() []time.Duration {
	b := make([]time.Duration, 45)
	for i := range b {
		b[i] = time.Duration(math.Round(float64(time.Millisecond) * math.Pow(2, float64(i)/2)))
	}
	return b
}()

// LagBounds returns the upper bounds of the lag histogram's buckets, the
// same for every Histogram. The caller must not modify the slice.
func LagBounds() []time.Duration { return lagBounds }

// lagBucket returns the index of the bucket that holds lag d.
func lagBucket(d time.Duration) int {
	return sort.Search(len(lagBounds), func(i int) bool { return lagBounds[i] >= d })
}

// histogram is the engine's mutable lag histogram, guarded by Engine.mu.
type histogram struct {
	counts [46]uint64
	count  uint64
	sum    time.Duration
	max    time.Duration
}

func (h *histogram) add(bucket int, d time.Duration) {
	h.counts[bucket]++
	h.count++
	h.sum += d
	h.max = max(h.max, d)
}

func (h *histogram) snapshot() Histogram {
	return Histogram{
		Bounds: lagBounds,
		Counts: append([]uint64(nil), h.counts[:]...),
		Count:  h.count,
		Sum:    h.sum,
		Max:    h.max,
	}
}

// Histogram is a snapshot of a lag histogram: for each deletion, the time
// from the item's due time until the ReapBatch call that deleted it returned.
type Histogram struct {
	// Bounds are the buckets' inclusive upper bounds (LagBounds).
	Bounds []time.Duration
	// Counts holds len(Bounds)+1 per-bucket (not cumulative) counts; the
	// last bucket has no upper bound.
	Counts []uint64
	// Count is the number of deletions recorded.
	Count uint64
	// Sum is the total of all lags.
	Sum time.Duration
	// Max is the largest lag recorded.
	Max time.Duration
}

// Quantile estimates the q-quantile (0 ≤ q ≤ 1) of the lags by linear
// interpolation inside the bucket that holds it, as Prometheus's
// histogram_quantile does, capped at Max. It returns 0 for an empty
// histogram; Quantile(1) is Max.
func (h Histogram) Quantile(q float64) time.Duration {
	if h.Count == 0 || len(h.Counts) == 0 {
		return 0
	}
	if q >= 1 {
		return h.Max
	}
	q = max(q, 0)
	rank := q * float64(h.Count)
	var cum float64
	for i, c := range h.Counts {
		if c == 0 {
			continue
		}
		if cum+float64(c) < rank {
			cum += float64(c)
			continue
		}
		var lo, hi time.Duration
		if i > 0 {
			lo = h.Bounds[i-1]
		}
		if i < len(h.Bounds) {
			hi = h.Bounds[i]
		} else {
			hi = h.Max
		}
		hi = min(hi, h.Max)
		lo = min(lo, hi)
		frac := (rank - cum) / float64(c)
		return lo + time.Duration(frac*float64(hi-lo))
	}
	return h.Max
}

// P50 is Quantile(0.5).
func (h Histogram) P50() time.Duration { return h.Quantile(0.5) }

// P99 is Quantile(0.99).
func (h Histogram) P99() time.Duration { return h.Quantile(0.99) }

// Merge returns the sum of h and o, which must share the same Bounds (all
// lag histograms do).
func (h Histogram) Merge(o Histogram) Histogram {
	if h.Count == 0 && len(h.Counts) == 0 {
		return o
	}
	out := Histogram{Bounds: h.Bounds, Counts: append([]uint64(nil), h.Counts...)}
	for i := range min(len(out.Counts), len(o.Counts)) {
		out.Counts[i] += o.Counts[i]
	}
	out.Count = h.Count + o.Count
	out.Sum = h.Sum + o.Sum
	out.Max = max(h.Max, o.Max)
	return out
}
