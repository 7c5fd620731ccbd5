package mongoauth

import (
	"sync"
	"time"
)

// The failure delay's bounds: the second consecutive failure of an address
// waits MinFailureDelay, each further one twice as long, up to
// MaxFailureDelay.
const (
	MinFailureDelay = 100 * time.Millisecond
	MaxFailureDelay = 5 * time.Second
	// failureMemory is how long an address's failures are remembered
	// after its last one.
	failureMemory = time.Minute
	// maxThrottled bounds the addresses remembered; past it the
	// forgotten ones are dropped first, then all.
	maxThrottled = 10000
)

// Throttle delays the answers to failed authentications per client
// address (the host, without the port). It is safe for concurrent use.
type Throttle struct {
	now func() time.Time
	mu  sync.Mutex
	by  map[string]*failures
}

type failures struct {
	count int
	last  time.Time
}

// NewThrottle returns a Throttle on the clock now.
func NewThrottle(now func() time.Time) *Throttle {
	return &Throttle{now: now, by: map[string]*failures{}}
}

// Failed records a failed authentication from addr and returns how long
// to wait before answering it: nothing for the first failure, then
// MinFailureDelay doubling to at most MaxFailureDelay. An address without a
// failure for failureMemory starts again.
func (t *Throttle) Failed(addr string) time.Duration {
	now := t.now()
	t.mu.Lock()
	defer t.mu.Unlock()
	f := t.by[addr]
	if f == nil || now.Sub(f.last) > failureMemory {
		if f == nil && len(t.by) >= maxThrottled {
			t.forgetLocked(now)
		}
		f = &failures{}
		t.by[addr] = f
	}
	f.count++
	f.last = now
	return FailureDelay(f.count)
}

// FailureDelay is the delay before answering the n-th consecutive failure.
func FailureDelay(n int) time.Duration {
	if n <= 1 {
		return 0
	}
	d := MinFailureDelay
	for i := 2; i < n && d < MaxFailureDelay; i++ {
		d *= 2
	}
	return min(d, MaxFailureDelay)
}

// Succeeded forgets addr's failures.
func (t *Throttle) Succeeded(addr string) {
	t.mu.Lock()
	delete(t.by, addr)
	t.mu.Unlock()
}

func (t *Throttle) forgetLocked(now time.Time) {
	for a, f := range t.by {
		if now.Sub(f.last) > failureMemory {
			delete(t.by, a)
		}
	}
	if len(t.by) >= maxThrottled {
		clear(t.by)
	}
}
