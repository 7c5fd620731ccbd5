package bench

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"
)

// op performs one request (or one pipeline) for worker w and returns how
// many operations it carried.
type op func(ctx context.Context, w int, rng *rand.Rand) (int, error)

// phase is what a closed loop measured.
type phase struct {
	ops     int64
	elapsed time.Duration
	lat     Histogram
}

func (p *phase) throughput() float64 {
	if p.elapsed <= 0 {
		return 0
	}
	return float64(p.ops) / p.elapsed.Seconds()
}

// closedLoop runs clients workers, each sending the next request as soon
// as the previous one is answered, for d (or until ctx ends or a request
// fails: the first error stops the phase and is returned). Latency is per
// request, so per pipeline when a request carries several operations.
func closedLoop(ctx context.Context, clients int, d time.Duration, prog *Progress, what string, f op) (*phase, error) {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	var (
		ops      atomic.Int64
		wg       sync.WaitGroup
		mu       sync.Mutex
		firstErr error
		total    Histogram
	)
	start := time.Now()
	stop := ticker(250*time.Millisecond, func() {
		n := ops.Load()
		prog.Update("%s: %d ops, %.0f ops/s", what, n, float64(n)/time.Since(start).Seconds())
	})
	for w := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(w)+1, uint64(start.UnixNano())))
			var h Histogram
			var n int64
			for ctx.Err() == nil {
				t0 := time.Now()
				k, err := f(ctx, w, rng)
				if err != nil {
					if ctx.Err() != nil && (errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled)) {
						break
					}
					mu.Lock()
					if firstErr == nil {
						firstErr = err
					}
					mu.Unlock()
					cancel()
					break
				}
				h.Record(time.Since(t0))
				n += int64(k)
				ops.Add(int64(k))
			}
			mu.Lock()
			total.Merge(&h)
			mu.Unlock()
		}()
	}
	wg.Wait()
	stop()
	prog.Done()
	if firstErr != nil {
		return nil, fmt.Errorf("%s: %w", what, firstErr)
	}
	return &phase{ops: ops.Load(), elapsed: time.Since(start), lat: total}, nil
}
