package bench

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// steadyTick is the period of steady's write batches.
const steadyTick = 10 * time.Millisecond

// steadyBatch is one batch of steady's writes: items [from, to) all due at
// due.
type steadyBatch struct {
	from, to int
	due      time.Time
}

// runSteady writes opts.SteadyRate items per second, each with TTL
// opts.SteadyTTL, for opts.SteadyFor, while reading the server's deletion
// counter. It reports the backlog (items due but not yet deleted) over
// time, whether it stayed bounded, and the deletion lag (deleted at minus
// due at), taking deletions in due order; a deletion is timed at the poll
// that first counts it, so lags are late by at most opts.Poll.
func runSteady(ctx context.Context, e *env, c *conn) Result {
	r := Result{Target: c.Label, Protocol: c.Protocol, Workload: "steady"}
	o := e.opts
	val := value(o.ValueSize, 't')
	if err := e.prepareExpiring(ctx, c, &r); err != nil {
		r.Error = err.Error()
		return r
	}
	if err := e.loadLive(ctx, c); err != nil {
		r.Error = err.Error()
		return r
	}
	fg := e.startForeground(ctx, c)
	pl := e.startPoller(ctx, c)
	base, err := e.waitFor(ctx, pl, time.Now().Add(o.Timeout), "steady baseline", func(counterSample) bool { return true })
	if err != nil {
		_, _ = fg.stop()
		_, _ = pl.stop()
		r.Error = fmt.Sprintf("read counters: %v", err)
		return r
	}
	e.prog.Phase("steady on %s: %d items/s with TTL %s for %s", c, o.SteadyRate, o.SteadyTTL, o.SteadyFor)
	start := time.Now()
	batches, written, werr := e.steadyWrite(ctx, c, start, val)
	writeEnd := time.Now()
	var last counterSample
	if werr == nil && written > 0 {
		lastDue := batches[len(batches)-1].due
		e.prog.Phase("steady on %s: %d written; waiting up to %s after the last due instant for their deletion", c, written, o.Timeout)
		last, werr = e.waitFor(ctx, pl, lastDue.Add(o.Timeout), "steady drain", func(s counterSample) bool {
			return s.Deleted-base.Deleted >= int64(written)
		})
		e.prog.Done()
		if errors.Is(werr, errTimeout) {
			r.notef("not all deleted within --timeout %s of the last due instant: %d of %d", o.Timeout, last.Deleted-base.Deleted, written)
			werr = nil
		} else if werr == nil {
			r.add("drained_after_last_due", last.at.Sub(lastDue).Seconds(), "s", Lower)
		}
	}
	reads, ferr := fg.stop()
	samples, perr := pl.stop()
	for _, err := range []error{werr, ferr, perr} {
		if err != nil {
			r.Error = err.Error()
			return r
		}
	}
	r.add("written", float64(written), "items", Neither)
	r.add("write_rate", float64(written)/writeEnd.Sub(start).Seconds(), "items/s", Higher)
	if float64(written) < 0.95*float64(o.SteadyRate)*o.SteadyFor.Seconds() {
		r.notef("writes fell behind: %d of %.0f scheduled", written, float64(o.SteadyRate)*o.SteadyFor.Seconds())
	}
	an := analyzeSteady(batches, samples, base.Deleted, start, writeEnd, float64(o.SteadyRate))
	r.addLatencies("lag", an.lag.Summary())
	r.add("backlog.max", float64(an.maxBacklog), "items", Lower)
	r.add("backlog.at_write_end", float64(an.endBacklog), "items", Lower)
	bounded := 0.0
	if an.bounded {
		bounded = 1
	}
	r.add("backlog_bounded", bounded, "bool", Higher)
	r.addLatencies("read", Summarize(between(reads, start, writeEnd)))
	r.series = &series{zero: start, reads: reads, counts: an.backlog, countLabel: "backlog (due, not deleted)",
		marks: []mark{{at: writeEnd, label: "writes stop"}}}
	if err := e.reset(ctx, c); err != nil {
		r.notef("cleanup: %v", err)
	}
	return r
}

// steadyWrite paces batches every steadyTick for opts.SteadyFor over
// steadyWriters writers and returns the batches written, in due order.
func (e *env) steadyWrite(ctx context.Context, c *conn, start time.Time, val []byte) ([]steadyBatch, int, error) {
	o := e.opts
	jobs := make(chan steadyBatch, 2*steadyWriters)
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		firstErr error
		done     atomic.Int64
	)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	for range steadyWriters {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for b := range jobs {
				if err := e.writeBatch(ctx, c, "steady", b.from, b.to, func(int) time.Time { return b.due }, val); err != nil {
					mu.Lock()
					if firstErr == nil && ctx.Err() == nil {
						firstErr = fmt.Errorf("steady write: %w", err)
					}
					mu.Unlock()
					cancel()
					return
				}
				done.Add(int64(b.to - b.from))
			}
		}()
	}
	var batches []steadyBatch
	next, owed := 0, 0.0
	t := time.NewTicker(steadyTick)
	stopProg := ticker(250*time.Millisecond, func() {
		e.prog.Update("steady: %d written, %.0f items/s", done.Load(), float64(done.Load())/time.Since(start).Seconds())
	})
	end := start.Add(o.SteadyFor)
loop:
	for now := start; now.Before(end); now = time.Now() {
		owed += float64(o.SteadyRate) * steadyTick.Seconds()
		if k := int(owed); k > 0 {
			owed -= float64(k)
			b := steadyBatch{from: next, to: next + k, due: now.Add(o.SteadyTTL)}
			select {
			case jobs <- b:
				batches = append(batches, b)
				next += k
			case <-ctx.Done():
				break loop
			}
		}
		select {
		case <-t.C:
		case <-ctx.Done():
			break loop
		}
	}
	t.Stop()
	close(jobs)
	wg.Wait()
	stopProg()
	e.prog.Done()
	if firstErr != nil {
		return nil, 0, firstErr
	}
	return batches, next, ctx.Err()
}

// steadyWriters is the number of connections steady writes over: enough
// that a client-side round trip does not cap the rate.
const steadyWriters = 16

// steadyAnalysis is what steady derives from its batches and the counter
// samples.
type steadyAnalysis struct {
	lag        Histogram
	backlog    []countPoint
	maxBacklog int64
	endBacklog int64
	bounded    bool
}

// analyzeSteady computes the backlog at each counter sample (items due by
// then minus items deleted by then) and each deletion's lag, taking
// deletions in due order. The backlog counts as bounded when its maximum
// over the last third of the writing time exceeds its maximum over the
// middle third by at most a quarter plus a tenth of a second's writes (a
// backlog that grows steadily ends the last third 1.5 times as high).
func analyzeSteady(batches []steadyBatch, samples []counterSample, base int64, start, writeEnd time.Time, rate float64) steadyAnalysis {
	var a steadyAnalysis
	// dueBy[i] is the number of items due at or before batches[i].due.
	dueBy := make([]int64, len(batches))
	var cum int64
	for i, b := range batches {
		cum += int64(b.to - b.from)
		dueBy[i] = cum
	}
	dueCount := func(t time.Time) int64 {
		lo, hi := 0, len(batches)
		for lo < hi {
			m := (lo + hi) / 2
			if !batches[m].due.After(t) {
				lo = m + 1
			} else {
				hi = m
			}
		}
		if lo == 0 {
			return 0
		}
		return dueBy[lo-1]
	}
	third := writeEnd.Sub(start) / 3
	var maxMid, maxLast int64
	var prev int64
	bi := 0 // batch holding the next deletion in due order
	for _, s := range samples {
		k := min(max(s.Deleted-base, 0), cum)
		backlog := max(dueCount(s.at)-k, 0)
		a.backlog = append(a.backlog, countPoint{at: s.at, n: backlog})
		if !s.at.After(writeEnd) {
			a.maxBacklog = max(a.maxBacklog, backlog)
			a.endBacklog = backlog
			switch {
			case s.at.After(start.Add(2 * third)):
				maxLast = max(maxLast, backlog)
			case s.at.After(start.Add(third)):
				maxMid = max(maxMid, backlog)
			}
		}
		for j := prev; j < k; j++ {
			for bi < len(batches) && dueBy[bi] <= j {
				bi++
			}
			if bi < len(batches) {
				a.lag.Record(max(s.at.Sub(batches[bi].due), 0))
			}
		}
		prev = max(prev, k)
	}
	a.bounded = float64(maxLast) <= 1.25*float64(maxMid)+rate/10
	return a
}
