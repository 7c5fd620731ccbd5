package expiry

import (
	"math"
	"time"
)

// Rate estimation: the sweeper folds (items deleted, time spent) into a
// time-weighted moving average of items per second. Time spent counts from
// the start of a batch's wait for tokens or back-off pause to the return of
// its Reap call, so the estimate is the rate the sweeper really achieves
// with rate limiting and back-off in force; sleeping between passes does
// not count. Samples shorter than rateMinSample are pooled with the next
// ones, and each pooled sample weighs 1 − e^(−Δt/τ) with τ = rateTau.
const (
	rateTau       = 5 * time.Second
	rateMinSample = 10 * time.Millisecond
)

type rateEstimator struct {
	items   int64
	elapsed time.Duration
	rate    float64 // items per second; 0 until the first sample
}

// add records n items deleted in d and reports whether the estimate moved.
func (r *rateEstimator) add(n int, d time.Duration) bool {
	r.items += int64(n)
	r.elapsed += max(d, 0)
	if r.elapsed < rateMinSample {
		return false
	}
	sample := float64(r.items) / r.elapsed.Seconds()
	if r.rate == 0 {
		r.rate = sample
	} else {
		alpha := 1 - math.Exp(-float64(r.elapsed)/float64(rateTau))
		r.rate += alpha * (sample - r.rate)
	}
	r.items, r.elapsed = 0, 0
	return true
}

// estimate returns how long deleting n items takes at rate items per second,
// capped by limit items per second when limit > 0; 0 when the rate is
// unknown.
func estimate(n int64, rate float64, limit int64) time.Duration {
	if limit > 0 && (rate == 0 || rate > float64(limit)) {
		rate = float64(limit)
	}
	if rate <= 0 || n <= 0 {
		return 0
	}
	secs := float64(n) / rate
	if secs >= float64(math.MaxInt64)/float64(time.Second) {
		return time.Duration(math.MaxInt64)
	}
	return time.Duration(secs * float64(time.Second))
}
