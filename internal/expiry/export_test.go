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
