package expiry

import (
	"math/bits"
	"sync/atomic"
	"time"
)

// fgBuckets is the number of buckets of the foreground-latency histogram:
// bucket 0 holds latencies up to 1024ns, then four buckets per doubling up
// to 2^40ns (about 18 minutes); the last bucket also holds anything longer.
const fgBuckets = 1 + 4*30

// fgBucket maps a latency to its bucket.
func fgBucket(d time.Duration) int {
	v := uint64(max(d, 0))
	if v <= 1024 {
		return 0
	}
	v-- // so an exact bucket upper bound falls into that bucket
	b := bits.Len64(v)
	sub := int(v>>(b-3)) & 3
	return min(1+(b-11)*4+sub, fgBuckets-1)
}

// fgUpper is the upper bound of a foreground bucket.
func fgUpper(i int) time.Duration {
	if i == 0 {
		return 1024
	}
	b := (i-1)/4 + 11
	sub := (i - 1) % 4
	lo := uint64(1)<<(b-1) + uint64(sub)<<(b-3)
	return time.Duration(lo + uint64(1)<<(b-3))
}

// foreground is a cumulative latency histogram written lock-free by
// ObserveForeground and read by the sweeper, which diffs it against its
// previous reading to get one window.
type foreground struct {
	counts [fgBuckets]atomic.Uint64
}

func (f *foreground) observe(d time.Duration) {
	f.counts[fgBucket(d)].Add(1)
}

// backoff is the sweeper's back-off state (owned by the sweeper goroutine).
type backoff struct {
	cfg      BackoffConfig
	prev     [fgBuckets]uint64
	lastEval time.Time
	baseline time.Duration // 0 until the first judged window
	recent   time.Duration // p99 of the last judged window
	level    int
	windows  int64 // judged windows
	slow     int64 // judged windows found slow
}

// Baseline adaptation rates: calm windows pull the baseline quickly, slow
// windows slowly, so a lasting change of workload becomes the new normal
// after about a minute of slow windows.
const (
	baselineCalmAlpha = 0.2
	baselineSlowAlpha = 0.02
)

// evaluate judges the window since the last judged one if it is at least
// cfg.Window long and has cfg.MinSamples samples; it reports whether it
// judged one.
func (b *backoff) evaluate(now time.Time, f *foreground) bool {
	if b.cfg.Disabled {
		return false
	}
	if b.lastEval.IsZero() {
		b.lastEval = now
		for i := range f.counts {
			b.prev[i] = f.counts[i].Load()
		}
		return false
	}
	if now.Sub(b.lastEval) < b.cfg.Window {
		return false
	}
	var cur [fgBuckets]uint64
	var n uint64
	for i := range f.counts {
		cur[i] = f.counts[i].Load()
		n += cur[i] - b.prev[i]
	}
	if n < uint64(b.cfg.MinSamples) {
		return false
	}
	// p99: the upper bound of the bucket holding rank ceil(0.99 n).
	rank := (n*99 + 99) / 100
	var cum uint64
	p99 := fgUpper(fgBuckets - 1)
	for i := range cur {
		cum += cur[i] - b.prev[i]
		if cum >= rank {
			p99 = fgUpper(i)
			break
		}
	}
	b.prev = cur
	b.lastEval = now
	b.recent = p99
	b.windows++
	switch {
	case b.baseline == 0:
		b.baseline = p99
	case p99 > b.cfg.Floor && float64(p99) > b.cfg.Factor*float64(b.baseline):
		b.slow++
		b.level = min(b.level+1, b.cfg.MaxLevel)
		b.baseline += time.Duration(baselineSlowAlpha * float64(p99-b.baseline))
	default:
		b.level = max(b.level-1, 0)
		b.baseline += time.Duration(baselineCalmAlpha * float64(p99-b.baseline))
	}
	return true
}

// batch returns the batch size at the current level.
func (b *backoff) batch(size int) int {
	return max(1, size>>b.level)
}

// pause returns the pause before each batch at the current level.
func (b *backoff) pause() time.Duration {
	if b.level == 0 {
		return 0
	}
	return b.cfg.Pause << (b.level - 1)
}
