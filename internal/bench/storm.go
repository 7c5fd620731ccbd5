package bench

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// series is what the latency-over-time charts draw from a run: the
// foreground reads and a count over time (items remaining or backlog),
// times relative to zero (the due instant of storm, the start of steady).
type series struct {
	zero       time.Time
	reads      []readSample
	counts     []countPoint
	countLabel string
	marks      []mark
}

type countPoint struct {
	at time.Time
	n  int64
}

type mark struct {
	at    time.Time
	label string
}

// runStorm writes opts.StormItems items all due at one instant, then
// measures how long after it the server's counters say they are all
// physically gone, at what rate they went, and the p99 of foreground reads
// before, during and after.
func runStorm(ctx context.Context, e *env, c *conn) Result {
	r := Result{Target: c.Label, Protocol: c.Protocol, Workload: "storm"}
	o := e.opts
	n := o.StormItems
	val := value(o.ValueSize, 's')
	if err := e.prepareExpiring(ctx, c, &r); err != nil {
		r.Error = err.Error()
		return r
	}
	due, loaded, err := e.loadBeforeDue(ctx, c, &r, "storm", n, func(_ int, due time.Time) time.Time { return due }, val,
		func() error { return e.loadLive(ctx, c) })
	if err != nil {
		r.Error = err.Error()
		return r
	}
	res := e.measureDeletion(ctx, c, &r, n, due, loaded, "storm")
	if res != nil {
		r.series = res
	}
	if err := e.reset(ctx, c); err != nil {
		r.notef("cleanup: %v", err)
	}
	return r
}

// measureDeletion runs foreground reads and the counter poller from start
// on, waits until n more items are deleted after due (or opts.Timeout
// passes), reads on for opts.Lead, and adds the figures to r.
func (e *env) measureDeletion(ctx context.Context, c *conn, r *Result, n int, due, start time.Time, what string) *series {
	o := e.opts
	fg := e.startForeground(ctx, c)
	pl := e.startPoller(ctx, c)
	// The counters' baseline is their last reading before the due instant.
	base, err := e.waitFor(ctx, pl, time.Now().Add(o.Timeout), what+" baseline", func(counterSample) bool { return true })
	if err != nil {
		_, _ = fg.stop()
		_, _ = pl.stop()
		r.Error = fmt.Sprintf("read counters: %v", err)
		return nil
	}
	for time.Now().Before(due) && ctx.Err() == nil {
		if s, ok, _ := pl.last(); ok && s.at.Before(due) {
			base = s
		}
		select {
		case <-ctx.Done():
		case <-time.After(min(o.Poll, time.Until(due))):
		}
	}
	gone := func(s counterSample) bool {
		return s.Deleted-base.Deleted >= int64(n) && (s.Present < 0 || base.Present < 0 || s.Present <= base.Present-int64(n))
	}
	e.prog.Phase("%s on %s: due; waiting up to %s for %d deletions", what, c, o.Timeout, n)
	last, werr := e.waitFor(ctx, pl, due.Add(o.Timeout), what, gone)
	e.prog.Done()
	var goneAt time.Time
	if werr == nil {
		goneAt = last.at
		e.prog.Phase("%s on %s: all gone after %s; reading on for %s", what, c, goneAt.Sub(due).Round(time.Millisecond), o.Lead)
		select {
		case <-ctx.Done():
		case <-time.After(o.Lead):
		}
	}
	reads, ferr := fg.stop()
	samples, perr := pl.stop()
	switch {
	case werr != nil && !errors.Is(werr, errTimeout):
		r.Error = werr.Error()
		return nil
	case ferr != nil:
		r.Error = ferr.Error()
		return nil
	case perr != nil:
		r.Error = perr.Error()
		return nil
	}
	deleted := last.Deleted - base.Deleted
	end := goneAt
	if werr != nil {
		end = last.at
		r.notef("not all gone within --timeout %s: %d of %d deleted", o.Timeout, deleted, n)
		r.add("remaining", float64(int64(n)-deleted), "items", Lower)
	} else {
		r.add("gone_after", goneAt.Sub(due).Seconds(), "s", Lower)
	}
	if el := end.Sub(due); el > 0 {
		r.add("deletions_per_s", float64(deleted)/el.Seconds(), "items/s", Higher)
	}
	if first, ok := firstSample(samples, due, func(s counterSample) bool { return s.Deleted > base.Deleted }); ok {
		r.add("first_deletion_after", first.at.Sub(due).Seconds(), "s", Lower)
	}
	before := Summarize(between(reads, start.Add(max(0, due.Sub(start)-o.Lead)), due))
	during := Summarize(between(reads, due, maxTime(end, due.Add(o.Window))))
	r.addDur("read_before.p99", before.P99, Lower)
	r.addDur("read_during.p99", during.P99, Lower)
	r.addDur("read_during.max", during.Max, Lower)
	if werr == nil {
		after := Summarize(between(reads, end, end.Add(o.Lead)))
		r.addDur("read_after.p99", after.P99, Lower)
	}
	if before.P99 > 0 {
		r.add("read_p99_during_over_before", float64(during.P99)/float64(before.P99), "x", Lower)
	}
	if len(samples) > 0 {
		endSample, ok := firstSample(samples, maxTime(end, due.Add(o.Window)), func(counterSample) bool { return true })
		if !ok {
			endSample = samples[len(samples)-1]
		}
		addServerReads(r, samples[0].Reads, base.Reads, endSample.Reads)
	}
	s := &series{zero: due, reads: reads, countLabel: "items remaining", marks: []mark{{at: due, label: "due"}}}
	for _, cs := range samples {
		s.counts = append(s.counts, countPoint{at: cs.at, n: max(int64(n)-max(cs.Deleted-base.Deleted, 0), 0)})
	}
	if werr == nil {
		s.marks = append(s.marks, mark{at: goneAt, label: "all gone"})
	}
	return s
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}
