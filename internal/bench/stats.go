package bench

import (
	"math"
	"math/bits"
	"slices"
	"time"
)

// Percentile returns the q-quantile (0 < q <= 1) of sorted by the
// nearest-rank method: the smallest sample with at least q of all samples
// at or below it. It returns 0 for no samples; q <= 0 gives the minimum.
func Percentile(sorted []time.Duration, q float64) time.Duration {
	n := len(sorted)
	if n == 0 {
		return 0
	}
	rank := int(math.Ceil(q * float64(n)))
	rank = min(max(rank, 1), n)
	return sorted[rank-1]
}

// Median returns the median of xs (the mean of the two middle values when
// their number is even) without changing xs; NaN for none.
func Median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	m := len(s) / 2
	if len(s)%2 == 1 {
		return s[m]
	}
	return (s[m-1] + s[m]) / 2
}

// Latencies summarises a set of latencies.
type Latencies struct {
	Count int64         `json:"count"`
	P50   time.Duration `json:"p50"`
	P99   time.Duration `json:"p99"`
	P999  time.Duration `json:"p999"`
	Max   time.Duration `json:"max"`
}

// Summarize returns the summary of samples (which it sorts in place).
func Summarize(samples []time.Duration) Latencies {
	slices.Sort(samples)
	if len(samples) == 0 {
		return Latencies{}
	}
	return Latencies{
		Count: int64(len(samples)),
		P50:   Percentile(samples, 0.50),
		P99:   Percentile(samples, 0.99),
		P999:  Percentile(samples, 0.999),
		Max:   samples[len(samples)-1],
	}
}

// subBits is the histogram's precision: 2^subBits buckets per power of two,
// so a reported value is within 1/128 (0.8%) of the true one.
const subBits = 7

// Histogram counts durations in log-linear buckets: exact below 128 ns,
// then 128 buckets per power of two. Its memory is bounded by the largest
// value recorded (about 3,500 counters for 10 s) whatever the count. The
// zero value is ready to use; it is not safe for concurrent use (give each
// worker its own and Merge them).
type Histogram struct {
	counts []int64
	n      int64
	max    int64
}

func bucketOf(v int64) int {
	if v < 1<<subBits {
		return int(max(v, 0))
	}
	shift := bits.Len64(uint64(v)) - subBits - 1
	return (shift+1)<<subBits + int(v>>shift) - 1<<subBits
}

// bucketHigh is the largest value that falls in bucket i.
func bucketHigh(i int) int64 {
	if i < 1<<subBits {
		return int64(i)
	}
	shift := i>>subBits - 1
	mant := int64(i&(1<<subBits-1)) + 1<<subBits
	return (mant+1)<<shift - 1
}

// Record adds one duration (negative ones count as 0).
func (h *Histogram) Record(d time.Duration) {
	v := max(int64(d), 0)
	b := bucketOf(v)
	if b >= len(h.counts) {
		h.counts = append(h.counts, make([]int64, b+1-len(h.counts))...)
	}
	h.counts[b]++
	h.n++
	h.max = max(h.max, v)
}

// Merge adds every count of o to h.
func (h *Histogram) Merge(o *Histogram) {
	if len(o.counts) > len(h.counts) {
		h.counts = append(h.counts, make([]int64, len(o.counts)-len(h.counts))...)
	}
	for i, c := range o.counts {
		h.counts[i] += c
	}
	h.n += o.n
	h.max = max(h.max, o.max)
}

// Count is the number of durations recorded.
func (h *Histogram) Count() int64 { return h.n }

// Quantile returns the nearest-rank q-quantile (0 < q <= 1), as the upper
// bound of its bucket but never above the largest value recorded.
func (h *Histogram) Quantile(q float64) time.Duration {
	if h.n == 0 {
		return 0
	}
	rank := min(max(int64(math.Ceil(q*float64(h.n))), 1), h.n)
	var seen int64
	for i, c := range h.counts {
		seen += c
		if seen >= rank {
			return time.Duration(min(bucketHigh(i), h.max))
		}
	}
	return time.Duration(h.max)
}

// Summary returns the histogram's count, p50, p99, p999 and exact max.
func (h *Histogram) Summary() Latencies {
	return Latencies{
		Count: h.n,
		P50:   h.Quantile(0.50),
		P99:   h.Quantile(0.99),
		P999:  h.Quantile(0.999),
		Max:   time.Duration(h.max),
	}
}
