package bench

import (
	"context"
	"fmt"
	"strconv"
	"time"
)

// scaleProbes is how many times scale times each keyspace command.
const scaleProbes = 200

// runScale loads opts.Keys keys of opts.ValueSize bytes, every second
// one with a TTL, opts.ScaleDue of them due at one instant and the others
// far in the future, and measures what a large keyspace costs: the
// server's resident memory once loaded (INFO memory used_memory_rss), how
// long after the instant the server's counters say the due keys are
// physically gone, and then the latency of DBSIZE, INFO keyspace,
// RANDOMKEY and SCAN pages of COUNT 100 over the keys left. It removes
// the keys when it ends unless opts.ScaleKeep: start-up time with the same
// data is the server's own and is measured outside the bench (run with
// ScaleKeep, restart the server and time its first PONG).
func runScale(ctx context.Context, e *env, c *conn) Result {
	r := Result{Target: c.Label, Protocol: c.Protocol, Workload: "scale"}
	o := e.opts
	n := o.Keys
	due := min(o.ScaleDue, n)
	stride := max(n/max(due, 1), 1)
	isDue := func(i int) bool { return due > 0 && i%stride == 0 && i/stride < due }
	val := value(o.ValueSize, 's')
	if err := e.prepareExpiring(ctx, c, &r); err != nil {
		r.Error = err.Error()
		return r
	}
	far := time.Now().Add(sparseTTL)
	dueOf := func(i int, at time.Time) time.Time {
		switch {
		case isDue(i):
			return at
		case i%2 == 1:
			return far
		default:
			return time.Time{}
		}
	}
	at, loaded, err := e.loadBeforeDue(ctx, c, &r, "scale", n, dueOf, val, func() error { return e.loadLive(ctx, c) })
	if err != nil {
		r.Error = err.Error()
		return r
	}
	r.add("keys", float64(n), "keys", Neither)
	if err := e.readRSS(ctx, c, &r); err != nil {
		r.Error = err.Error()
		return r
	}
	if due > 0 {
		e.measureDeletion(ctx, c, &r, due, at, loaded, "scale")
		if r.Error != "" {
			return r
		}
	}
	if err := e.probeScale(ctx, c, &r); err != nil {
		r.Error = err.Error()
		return r
	}
	if o.ScaleKeep {
		return r
	}
	if err := e.reset(ctx, c); err != nil {
		r.notef("cleanup: %v", err)
	}
	return r
}

// readRSS records the server's resident memory (INFO memory
// used_memory_rss).
func (e *env) readRSS(ctx context.Context, c *conn, r *Result) error {
	info, err := c.rdb.Info(ctx, "memory").Result()
	if err != nil {
		return fmt.Errorf("INFO memory: %w", err)
	}
	if v, err := strconv.ParseFloat(ParseInfo(info)["used_memory_rss"], 64); err == nil {
		r.add("rss", v, "bytes", Lower)
	} else {
		r.notef("INFO memory has no used_memory_rss")
	}
	return nil
}

// probeScale times the keyspace commands over the loaded keyspace.
func (e *env) probeScale(ctx context.Context, c *conn, r *Result) error {
	probes := []struct {
		name string
		run  func() error
	}{
		{"dbsize", func() error { return c.rdb.DBSize(ctx).Err() }},
		{"info_keyspace", func() error { return c.rdb.Info(ctx, "keyspace").Err() }},
		{"randomkey", func() error { return c.rdb.RandomKey(ctx).Err() }},
	}
	var cursor uint64
	probes = append(probes, struct {
		name string
		run  func() error
	}{"scan", func() error {
		var err error
		_, cursor, err = c.rdb.Scan(ctx, cursor, "", 100).Result()
		return err
	}})
	for _, p := range probes {
		e.prog.Phase("scale on %s: %d x %s", c, scaleProbes, p.name)
		lat := make([]time.Duration, 0, scaleProbes)
		for range scaleProbes {
			t0 := time.Now()
			if err := p.run(); err != nil {
				return fmt.Errorf("%s: %w", p.name, err)
			}
			lat = append(lat, time.Since(t0))
		}
		l := Summarize(lat)
		r.addDur(p.name+".p50", l.P50, Lower)
		r.addDur(p.name+".p99", l.P99, Lower)
	}
	return nil
}
