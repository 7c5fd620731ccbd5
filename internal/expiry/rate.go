package expiry

import (
	"math"
	"time"
)

// Rate estimation: the sweeper keeps exponentially decayed sums of the
// items it deleted and the time it spent, and the rate is their ratio.
// Time spent counts from the start of a batch's wait for tokens or back-off
// pause to the return of its ReapBatch call, so the estimate is the rate the
// sweeper really achieves with rate limiting and back-off in force;
// sleeping between passes does not count. Both sums decay by e^(−Δt/τ) per
// Δt of reaping time, with τ = rateTau, so the estimate follows the last
// few τ of work.
const rateTau = 5 * time.Second

type rateEstimator struct {
	items, secs float64 // decayed sums
}

// add records n items deleted in d and reports whether the estimate moved.
func (r *rateEstimator) add(n int, d time.Duration) bool {
	d = max(d, 0)
	if n == 0 && d == 0 {
		return false
	}
	decay := math.Exp(-float64(d) / float64(rateTau))
	r.items = r.items*decay + float64(n)
	r.secs = r.secs*decay + d.Seconds()
	return true
}

// rate returns items per second, 0 until some reaping time was measured.
func (r *rateEstimator) rate() float64 {
	if r.secs <= 0 {
		return 0
	}
	return r.items / r.secs
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
