package expiry

import (
	"context"
	"log/slog"
	"math"
	"slices"
	"time"
)

// pass runs one pass: sub-passes until no source has due items left (as of
// the time the pass started), as MongoDB's _doTTLPass does. periodic says
// the sleep ran into its ttlMonitorSleepSecs bound, so every source is asked
// for its next due time, not only those known or hinted to be due.
func (e *Engine) pass(ctx context.Context, periodic bool) {
	passNow := e.now()
	nowMs := passNow.UnixMilli()
	e.sleepUntil.Store(math.MinInt64)
	e.sw.backoff.evaluate(passNow, &e.fg)
	e.sw.backoff.passStarted(passNow)
	e.mu.Lock()
	e.pub.inPass, e.pub.passNow, e.pub.lastPassStart = true, passNow, passNow
	e.publishBackoffLocked()
	e.mu.Unlock()

	subPasses, completed := 0, true
	for {
		subPasses++
		e.mu.Lock()
		e.tot.subPasses++
		e.mu.Unlock()
		refreshAll := e.takeHint(nowMs) || (periodic && subPasses == 1)
		due := e.refresh(ctx, passNow, refreshAll)
		more, ok := e.subPass(ctx, due, passNow)
		if !ok || e.stopping(ctx) {
			completed = false
			break
		}
		if len(more) == 0 {
			break
		}
	}

	end := e.now()
	e.sw.lastPassEnd = end
	e.sw.backoff.idleNow()
	e.mu.Lock()
	if completed {
		e.tot.passes++
	} else {
		e.pub.abandoned++
	}
	e.pub.inPass = false
	e.pub.lastPassDuration = end.Sub(passNow)
	e.mu.Unlock()
	e.log.LogAttrs(ctx, slog.LevelDebug, "expiry pass",
		slog.Bool("completed", completed),
		slog.Int("subPasses", subPasses),
		slog.Duration("took", end.Sub(passNow)))
}

// refresh asks sources for their next due time and returns those with items
// due at or before passNow, rotated by the round-robin offset. It asks every
// source when all is set, otherwise only those not yet asked or last known
// to be due; a source waiting out ErrorRetry is skipped.
func (e *Engine) refresh(ctx context.Context, passNow time.Time, all bool) []*sourceState {
	nowMs := passNow.UnixMilli()
	e.mu.Lock()
	cands := make([]*sourceState, 0, len(e.order))
	for _, st := range e.order {
		if st.retryAt > nowMs {
			continue
		}
		if all || !st.known || (st.hasNext && st.nextDue <= nowMs) {
			cands = append(cands, st)
		}
	}
	e.mu.Unlock()
	due := cands[:0]
	for _, st := range cands {
		if ctx.Err() != nil {
			return nil
		}
		if !st.removed.Load() && e.askNextDue(ctx, st, passNow) {
			due = append(due, st)
		}
	}
	if n := len(due); n > 1 {
		k := e.sw.rr % n
		due = append(due[k:], due[:k]...)
	}
	e.sw.rr++
	return due
}

// askNextDue calls NextDue, records the answer and reports whether the
// source has an item due at or before passNow. A source with nothing due
// has a backlog of zero.
func (e *Engine) askNextDue(ctx context.Context, st *sourceState, passNow time.Time) bool {
	due, ok, err := st.src.NextDue(ctx)
	e.mu.Lock()
	if err != nil {
		st.known = false
		st.c.backlogKnown = false
		report := e.sourceErrorLocked(ctx, st, true)
		e.mu.Unlock()
		if report {
			e.logSourceError(ctx, st, "next due", err)
		}
		return false
	}
	st.known, st.hasNext, st.retryAt = true, ok, 0
	if ok {
		st.nextDue = due.UnixMilli()
	}
	if ok && st.nextDue <= passNow.UnixMilli() {
		e.mu.Unlock()
		return true
	}
	now := e.now()
	if !ok || st.nextDue > now.UnixMilli() {
		st.setBacklog(0, time.Time{}, time.Time{}, passNow)
		e.mu.Unlock()
		return false
	}
	// Items fell due after the pass started: they wait for the next pass,
	// and the gauge must not say there are none, or under a steady stream
	// it would read 0 throughout however many items are due.
	fresh := st.c.backlogKnown && now.UnixMilli()-st.lastCount < e.cfg.BacklogInterval.Milliseconds()
	if st.counter == nil {
		st.c.backlogKnown = false
	}
	e.mu.Unlock()
	if st.counter != nil && !fresh {
		e.countBacklog(ctx, st, now)
	}
	return false
}

// sourceErrorLocked counts a source's error and, if hold is set, holds the
// source back for ErrorRetry; it reports whether the error should be logged
// (one caused by the sweeper stopping is not an error). e.mu is held.
func (e *Engine) sourceErrorLocked(ctx context.Context, st *sourceState, hold bool) bool {
	if hold {
		st.retryAt = e.now().Add(e.cfg.ErrorRetry).UnixMilli()
	}
	if ctx.Err() != nil {
		return false
	}
	st.c.errors++
	e.tot.errors++
	return true
}

// logSourceError logs a source's error; e.mu is not held.
func (e *Engine) logSourceError(ctx context.Context, st *sourceState, op string, err error) {
	e.log.LogAttrs(ctx, slog.LevelError, "expiry source failed",
		slog.String("source", st.name),
		slog.String("kind", string(st.kind)),
		slog.String("op", op),
		slog.Any("err", err))
}

// subPass visits every due source once, then keeps revisiting those with
// more work until none is left or ttlMonitorSubPassTargetSecs has elapsed
// (0: one visit each). It returns the sources that still have work, and
// false for ok when the pass must stop (ctx done or the monitor disabled).
func (e *Engine) subPass(ctx context.Context, list []*sourceState, passNow time.Time) (more []*sourceState, ok bool) {
	start := e.now()
	for len(list) > 0 {
		var next []*sourceState
		for _, st := range list {
			if e.stopping(ctx) {
				return nil, false
			}
			if st.removed.Load() {
				continue
			}
			if e.visit(ctx, st, passNow) {
				next = append(next, st)
			}
		}
		if e.stopping(ctx) {
			return nil, false
		}
		list = next
		target := time.Duration(e.params.Load().SubPassTargetSecs) * time.Second
		if len(list) == 0 || target == 0 {
			break
		}
		if e.now().Sub(start) >= target {
			e.mu.Lock()
			e.tot.subPassCaps++
			e.mu.Unlock()
			break
		}
	}
	return list, true
}

// visit reaps one source, one ReapBatch call per storage batch, until it has nothing due, its
// per-visit budget (ttlIndexDeleteTargetDocs, ttlIndexDeleteTargetTimeMS)
// is spent, it fails, or the sweeper must stop. It reports whether the
// source has more due items for a later visit.
func (e *Engine) visit(ctx context.Context, st *sourceState, passNow time.Time) bool {
	p := e.params.Load()
	start := e.now()
	var deadline time.Time
	var target int64 // 0 = unlimited
	if p.BatchDeletes {
		target = p.DeleteTargetDocs
		if p.DeleteTargetTimeMS > 0 {
			deadline = start.Add(time.Duration(p.DeleteTargetTimeMS) * time.Millisecond)
		}
	}
	var deleted int64
	batches := 0
	for {
		if st.removed.Load() || e.stopping(ctx) {
			return false
		}
		p = e.params.Load()
		batchStart := e.now()
		if e.sw.backoff.evaluate(batchStart, &e.fg) {
			e.mu.Lock()
			e.publishBackoffLocked()
			e.mu.Unlock()
		}
		e.sw.backoff.started(batchStart)
		if pause := e.sw.backoff.pause(); pause > 0 {
			ps := e.now()
			if e.wait(ctx, pause) != nil {
				return false
			}
			took := max(e.now().Sub(ps), 0)
			e.sw.backoff.paused(took)
			e.mu.Lock()
			e.tot.pauses++
			e.tot.pauseTime += took
			e.mu.Unlock()
		}
		want := e.sw.backoff.batch(min(int(p.BatchSize)*st.scale, MaxBatchSize))
		if target > 0 {
			want = int(min(int64(want), target-deleted))
		}
		want, waited, err := e.sw.limiter.take(ctx, want, p.MaxDeletesPerSecond, e.now, e.wait)
		if waited > 0 {
			e.mu.Lock()
			e.tot.rateWait += waited
			e.mu.Unlock()
		}
		if err != nil || st.removed.Load() {
			return false
		}
		t0 := e.now()
		// A visit's first batch always runs, so every visit makes
		// progress; a later one does not start once the deadline has
		// passed while waiting for tokens or a pause.
		if !deadline.IsZero() && !t0.Before(deadline) && batches > 0 {
			// The tokens go back; the time spent waiting for them still
			// counts toward the rate.
			e.sw.limiter.refund(want)
			e.sw.rate.add(0, t0.Sub(batchStart))
			e.capHit(st)
			return true
		}
		if e.batchHook != nil {
			e.batchHook(st.name, t0, deadline, batches == 0)
		}
		batches++
		e.fg.inBatch.Store(true)
		r, err := reapBatch(ctx, st.src, passNow, Batch{Max: want, Prepare: e.prepare})
		t1 := e.now()
		e.fg.batchEnd.Store(t1.UnixNano())
		e.fg.inBatch.Store(false)
		if len(r.Due) > 0 {
			e.sw.backoff.late(time.Duration(t1.UnixMilli()-slices.Min(r.Due)) * time.Millisecond)
		}
		e.sw.backoff.reaped(r.Items, t1.Sub(t0))
		st.catchUp(r, want, t1)
		e.sw.limiter.refund(want - r.Items)
		deleted += int64(r.Items)
		e.account(ctx, st, r, p.BatchDeletes, t0, t1, batchStart, err)
		if err != nil {
			return false
		}
		e.trackBacklog(ctx, st, r)
		switch {
		case !r.More:
			e.afterVisit(ctx, st, passNow, deleted)
			return false
		case r.Items == 0 && r.Skipped == 0:
			// More with no progress: a broken source. Leave it for
			// ErrorRetry rather than spin on it.
			e.mu.Lock()
			e.tot.stalls++
			st.retryAt = t1.Add(e.cfg.ErrorRetry).UnixMilli()
			e.mu.Unlock()
			e.log.LogAttrs(ctx, slog.LevelWarn, "expiry source reported more work but deleted nothing",
				slog.String("source", st.name), slog.String("kind", string(st.kind)))
			return false
		case target > 0 && deleted >= target, !deadline.IsZero() && !t1.Before(deadline):
			e.capHit(st)
			return true
		}
	}
}

// catchUpLag is how late the earliest item of a full batch must be for a
// CatchUp source's batches to grow.
const catchUpLag = 250 * time.Millisecond

// maxCatchUpFactor bounds CatchUp.CatchUpFactor.
const maxCatchUpFactor = 64

// catchUp adapts a CatchUp source's batch size after a batch of want
// items that deleted r and ended at end: a full batch whose earliest item
// was more than catchUpLag late doubles it (up to maxScale), any other
// batch halves it (down to 1).
func (st *sourceState) catchUp(r Reaped, want int, end time.Time) {
	if st.maxScale <= 1 {
		return
	}
	behind := false
	if r.Items >= want && len(r.Due) > 0 {
		earliest := slices.Min(r.Due)
		behind = end.UnixMilli()-earliest > catchUpLag.Milliseconds()
	}
	if behind {
		st.scale = min(st.scale*2, st.maxScale)
	} else {
		st.scale = max(st.scale/2, 1)
	}
}

// capHit counts a visit that ended with work left because its budget ran
// out (Redis's expired_time_cap_reached_count).
func (e *Engine) capHit(st *sourceState) {
	e.mu.Lock()
	e.tot.capHits++
	st.c.capHits++
	e.mu.Unlock()
}

// afterVisit refreshes the next due time of a source that reported no more
// due items, so the sleep after the pass knows it. A source that still
// claims due items although its visit deleted none is held back for
// ErrorRetry, so it cannot make the sweeper spin.
func (e *Engine) afterVisit(ctx context.Context, st *sourceState, passNow time.Time, deleted int64) {
	if !e.askNextDue(ctx, st, passNow) || deleted > 0 {
		return
	}
	e.mu.Lock()
	e.tot.stalls++
	st.retryAt = e.now().Add(e.cfg.ErrorRetry).UnixMilli()
	e.mu.Unlock()
	e.log.LogAttrs(ctx, slog.LevelWarn, "expiry source reports a due item it does not reap",
		slog.String("source", st.name), slog.String("kind", string(st.kind)))
}

// maxLagMs caps a recorded lag (about 139 years) so the arithmetic cannot
// overflow for items due at extreme dates.
const maxLagMs = 1 << 42

// account records one ReapBatch call: counters, lag, rate, errors, and the
// OnReaped hook. batched is whether the visit ran under
// ttlMonitorBatchDeletes.
func (e *Engine) account(ctx context.Context, st *sourceState, r Reaped, batched bool, t0, t1, batchStart time.Time, err error) {
	rateMoved := e.sw.rate.add(r.Items, t1.Sub(batchStart))
	e.mu.Lock()
	k := e.kinds[st.kind]
	if k == nil {
		k = &kindCounters{}
		e.kinds[st.kind] = k
	}
	took := max(t1.Sub(t0), 0)
	st.c.items += int64(r.Items)
	st.c.keys += int64(r.Keys)
	st.c.reaps++
	st.c.reapTime += took
	k.items += int64(r.Items)
	if batched {
		st.c.batchedReaps++
		k.batchedItems += int64(r.Items)
	}
	k.keys += int64(r.Keys)
	e.tot.items += int64(r.Items)
	e.tot.keys += int64(r.Keys)
	e.tot.reaps++
	e.tot.reapTime += took
	endMs, endNs := t1.UnixMilli(), t1.UnixNano()
	for _, due := range r.Due {
		var d time.Duration
		switch {
		case due >= endMs:
			// Due now (or, with a skewed clock, later): no lag.
		case due < endMs-maxLagMs:
			d = maxLagMs * time.Millisecond
		default:
			d = time.Duration(endNs - due*int64(time.Millisecond))
		}
		b := lagBucket(d)
		st.c.lag.add(b, d)
		k.lag.add(b, d)
		e.tot.lag.add(b, d)
	}
	if rateMoved {
		e.pub.rate = e.sw.rate.rate()
	}
	report := false
	if err != nil {
		st.c.backlogKnown = false
		report = e.sourceErrorLocked(ctx, st, true)
	}
	e.mu.Unlock()
	if report {
		e.logSourceError(ctx, st, "reap", err)
	}
	if r.Items > 0 && e.onReaped != nil {
		e.onReaped(st.name, r)
	}
}

// trackBacklog keeps a source's backlog gauge true after a batch that
// deleted r's items. The gauge counts the items due at or before its At
// time, so it drops by the deleted items due by then and stays known and
// as of the same time. When the batch leaves due items, a Counter source is
// counted again now if its figure is unknown or BacklogInterval old, so
// items that fell due since, during a long pass, show up too; a source
// that is no Counter has an unknown backlog while it has due items.
func (e *Engine) trackBacklog(ctx context.Context, st *sourceState, r Reaped) {
	now := e.now()
	e.mu.Lock()
	if st.counter == nil {
		st.c.backlogKnown = false
		e.mu.Unlock()
		return
	}
	if st.c.backlogKnown && st.c.backlog > 0 {
		atMs := st.c.backlogAt.UnixMilli()
		var gone int64
		last := int64(math.MinInt64)
		for _, due := range r.Due {
			if due <= atMs {
				gone++
				last = max(last, due)
			}
		}
		st.c.backlog = max(st.c.backlog-gone, 0)
		switch {
		case st.c.backlog == 0:
			st.c.oldest, st.c.newest = time.Time{}, time.Time{}
		case gone > 0 && last > st.c.oldest.UnixMilli():
			// Items go earliest first: none left is older than the
			// latest one deleted.
			st.c.oldest = time.UnixMilli(last)
		}
	}
	recount := r.More && (!st.c.backlogKnown || now.UnixMilli()-st.lastCount >= e.cfg.BacklogInterval.Milliseconds())
	e.mu.Unlock()
	if recount {
		e.countBacklog(ctx, st, now)
	}
}

// countBacklog sets a Counter source's backlog gauge to its items due at
// at; e.mu is not held.
func (e *Engine) countBacklog(ctx context.Context, st *sourceState, at time.Time) {
	nowMs := e.now().UnixMilli()
	n, oldest, newest, err := st.counter.CountDue(ctx, at)
	e.mu.Lock()
	report := false
	if err != nil {
		st.c.backlogKnown = false
		report = e.sourceErrorLocked(ctx, st, false)
	} else {
		st.setBacklog(n, oldest, newest, at)
		st.lastCount = nowMs
	}
	e.mu.Unlock()
	if report {
		e.logSourceError(ctx, st, "count due", err)
	}
}

// publishBackoffLocked copies the back-off state for Stats; e.mu is held.
func (e *Engine) publishBackoffLocked() {
	b := &e.sw.backoff
	e.pub.level, e.pub.duty, e.pub.baseline, e.pub.recent = b.level, b.duty(), b.baseline, b.recent
	e.pub.windows, e.pub.slowWindows = b.windows, b.slow
}

// stopping reports whether the current pass must stop: the sweeper is
// stopping or the monitor was disabled.
func (e *Engine) stopping(ctx context.Context) bool {
	return ctx.Err() != nil || !e.params.Load().MonitorEnabled
}
