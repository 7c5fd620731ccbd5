package bench

import (
	"context"
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

// warmUp runs f once on each of clients workers at the same time, so a
// client pool has all its connections open before a phase is timed.
func warmUp(ctx context.Context, clients int, f func(ctx context.Context) error) error {
	errs := make(chan error, clients)
	for range clients {
		go func() { errs <- f(ctx) }()
	}
	var first error
	for range clients {
		if err := <-errs; err != nil && first == nil {
			first = err
		}
	}
	if first != nil {
		return fmt.Errorf("warm up: %w", first)
	}
	return nil
}

// closedLoop runs clients workers, each sending the next request as soon
// as the previous one is answered, for d (or until ctx ends or a request
// fails: the first error stops the phase and is returned). Requests in
// flight when d passes are let finish and counted, and the phase is timed
// to the last answer, so no request is cut off (drivers fail a request
// early when its deadline is near, which would read as a server error).
// Latency is per request, so per pipeline when a request carries several
// operations.
func closedLoop(ctx context.Context, clients int, d time.Duration, prog *Progress, what string, f op) (*phase, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		ops      atomic.Int64
		stop     atomic.Bool
		wg       sync.WaitGroup
		mu       sync.Mutex
		firstErr error
		total    Histogram
	)
	start := time.Now()
	timer := time.AfterFunc(d, func() { stop.Store(true) })
	defer timer.Stop()
	stopProg := ticker(250*time.Millisecond, func() {
		n := ops.Load()
		prog.Update("%s: %d ops, %.0f ops/s", what, n, float64(n)/time.Since(start).Seconds())
	})
	for w := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(w)+1, uint64(start.UnixNano())))
			var h Histogram
			for !stop.Load() && ctx.Err() == nil {
				t0 := time.Now()
				k, err := f(ctx, w, rng)
				if err != nil {
					// A request cut off because another worker failed (or
					// the caller gave up) is not a failure of its own.
					if ctx.Err() == nil {
						mu.Lock()
						if firstErr == nil {
							firstErr = err
						}
						mu.Unlock()
						cancel()
					}
					break
				}
				h.Record(time.Since(t0))
				ops.Add(int64(k))
			}
			mu.Lock()
			total.Merge(&h)
			mu.Unlock()
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	stopProg()
	prog.Done()
	if firstErr != nil {
		return nil, fmt.Errorf("%s: %w", what, firstErr)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return &phase{ops: ops.Load(), elapsed: elapsed, lat: total}, nil
}
