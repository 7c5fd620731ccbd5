package expiry

import (
	"context"
	"time"
)

// PassForTest runs one full pass on the caller's goroutine, as Run would;
// the engine must not be running.
func (e *Engine) PassForTest(ctx context.Context) {
	if e.sw.pauseTimer == nil {
		e.sw.pauseTimer = time.NewTimer(time.Hour)
		e.sw.pauseTimer.Stop()
	}
	e.pass(ctx, true)
}

// SetBatchHook installs f to see every ReapBatch call the sweeper is about
// to make, with the visit's deadline and whether the call is the visit's
// first; call it before Run.
func (e *Engine) SetBatchHook(f func(source string, at, deadline time.Time, first bool)) {
	e.batchHook = f
}
