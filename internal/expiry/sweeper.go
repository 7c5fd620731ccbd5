package expiry

import (
	"context"
	"math"
	"time"
)

// sweeper is the state the Run goroutine owns.
type sweeper struct {
	backoff     backoff
	limiter     limiter
	rate        rateEstimator
	pauseTimer  *time.Timer
	lastPassEnd time.Time
	rr          int // round-robin offset, advanced every sub-pass
	// idleStarvedUntil is when preparations may go to Config.Idle again
	// after one found it starved (idle.go).
	idleStarvedUntil time.Time
}

// Run is the sweeper loop. It runs a pass at once, then sleeps until the
// earliest due item of any source (at least MinPeriod after the previous
// pass, at most ttlMonitorSleepSecs), runs the next pass, and so on. It
// returns nil when ctx is cancelled or Close is called, ErrRunning if
// another Run is active and ErrClosed after Close.
func (e *Engine) Run(ctx context.Context) error {
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		return ErrClosed
	}
	if e.running {
		e.mu.Unlock()
		return ErrRunning
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	e.running, e.stopRun, e.runDone = true, cancel, done
	e.mu.Unlock()
	defer func() {
		cancel()
		e.sleepUntil.Store(math.MinInt64)
		e.mu.Lock()
		e.running, e.stopRun, e.runDone = false, nil, nil
		e.pub.nextWake, e.pub.inPass = time.Time{}, false
		e.mu.Unlock()
		close(done)
	}()

	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	e.sw.pauseTimer = time.NewTimer(time.Hour)
	e.sw.pauseTimer.Stop()
	defer e.sw.pauseTimer.Stop()

	periodic := true // the first pass asks every source for its next due time
	for {
		if e.params.Load().MonitorEnabled {
			e.pass(ctx, periodic)
		}
		if ctx.Err() != nil {
			return nil
		}
		var ok bool
		if periodic, ok = e.sleep(ctx, timer); !ok {
			return nil
		}
	}
}

// sleep waits until the next pass is due. It reports whether the wait ran
// into its ttlMonitorSleepSecs bound (the next pass then refreshes every
// source) and false for ok when ctx was cancelled.
func (e *Engine) sleep(ctx context.Context, timer *time.Timer) (periodic, ok bool) {
	sleepStart := e.now()
	for {
		target, periodic := e.target(sleepStart)
		if h := e.hint.Load(); h < target && e.sleepUntil.Load() != math.MinInt64 {
			// A Wake raced with publishing sleepUntil; recompute.
			continue
		}
		d := time.UnixMilli(target).Sub(e.now())
		if d <= 0 {
			return periodic, true
		}
		timer.Reset(d)
		select {
		case <-ctx.Done():
			timer.Stop()
			return false, false
		case <-timer.C:
		case <-e.wakeCh:
			timer.Stop()
		}
	}
}

// target computes the time (Unix ms) the sweeper sleeps until, publishes it
// for Wake and Stats, and reports whether it is the ttlMonitorSleepSecs
// bound.
func (e *Engine) target(sleepStart time.Time) (int64, bool) {
	p := e.params.Load()
	maxT := sleepStart.UnixMilli() + int64(p.SleepSecs)*1000
	if !p.MonitorEnabled {
		e.sleepUntil.Store(math.MinInt64)
		e.publishNextWake(maxT)
		return maxT, true
	}
	t := maxT
	floor := e.sw.lastPassEnd.Add(e.cfg.MinPeriod).UnixMilli()
	e.mu.Lock()
	for _, st := range e.order {
		var due int64
		switch {
		case !st.known:
			due = math.MinInt64
		case st.hasNext:
			due = st.nextDue
		default:
			if st.retryAt == 0 {
				continue
			}
		}
		t = min(t, max(due, st.retryAt))
	}
	e.mu.Unlock()
	t = min(t, e.hint.Load())
	t = max(t, floor)
	if t > floor {
		e.sleepUntil.Store(t)
	} else {
		e.sleepUntil.Store(math.MinInt64)
	}
	e.publishNextWake(t)
	return t, t == maxT
}

func (e *Engine) publishNextWake(ms int64) {
	e.mu.Lock()
	e.pub.nextWake = time.UnixMilli(ms)
	e.mu.Unlock()
}

// takeHint consumes the Wake hint and reports whether it asked for an item
// due at or before nowMs; a later hint is put back for the next sleep.
func (e *Engine) takeHint(nowMs int64) bool {
	h := e.hint.Swap(math.MaxInt64)
	if h <= nowMs {
		return true
	}
	for {
		cur := e.hint.Load()
		if h >= cur || e.hint.CompareAndSwap(cur, h) {
			return false
		}
	}
}

// wait pauses the sweeper for d or until ctx is done.
func (e *Engine) wait(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := e.sw.pauseTimer
	t.Reset(d)
	select {
	case <-ctx.Done():
		t.Stop()
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
