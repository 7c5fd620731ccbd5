package expiry

import (
	"context"
	"time"
)

// limiter is the global token bucket behind ttlMaxDeletesPerSecond, owned by
// the sweeper goroutine. The bucket refills at rate tokens per second and
// holds at most a tenth of a second's worth (at least one token), so
// deletions are spread evenly rather than released in one-second bursts.
// Before each ReapBatch call the sweeper takes tokens for the batch (waiting if the
// bucket is short) and afterwards gives back those the batch did not use.
type limiter struct {
	tokens float64
	last   time.Time
	rate   float64
}

func (l *limiter) capacity() float64 { return max(1, l.rate/10) }

func (l *limiter) refill(now time.Time) {
	if !l.last.IsZero() {
		if dt := now.Sub(l.last).Seconds(); dt > 0 {
			l.tokens += dt * l.rate
		}
	}
	l.last = now
	l.tokens = min(l.tokens, l.capacity())
}

// take returns how many items (1..want) the next batch may delete and how
// long it waited for them. rate <= 0 means unlimited. sleep waits for a
// duration or for ctx; it returns ctx.Err().
func (l *limiter) take(ctx context.Context, want int, rate int64, now func() time.Time, sleep func(context.Context, time.Duration) error) (int, time.Duration, error) {
	if rate <= 0 {
		l.rate, l.last = 0, time.Time{}
		return want, 0, nil
	}
	if float64(rate) != l.rate {
		// A new rate starts with a full bucket.
		l.rate, l.last = float64(rate), time.Time{}
		l.tokens = l.capacity()
	}
	want = max(1, min(want, int(l.capacity())))
	start := now()
	l.refill(start)
	var waited time.Duration
	for l.tokens < float64(want) {
		need := time.Duration((float64(want) - l.tokens) / l.rate * float64(time.Second))
		if err := sleep(ctx, max(need, time.Microsecond)); err != nil {
			return 0, now().Sub(start), err
		}
		t := now()
		waited = t.Sub(start)
		l.refill(t)
	}
	l.tokens -= float64(want)
	return want, waited, nil
}

// refund gives back tokens a batch took but did not use.
func (l *limiter) refund(n int) {
	if l.rate > 0 && n > 0 {
		l.tokens = min(l.tokens+float64(n), l.capacity())
	}
}
