package bench

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// The expiry workloads keep their items in one RESP db or one collection:
// expiring items carry an expiry (PXAT, or expireAt under a TTL index with
// expireAfterSeconds 0) and live items none, so foreground reads hit the
// same keyspace or collection the deletions run in.
const (
	expColl     = "expiring"
	loadBatch   = 1000
	loadWorkers = 4
)

func expKey(prefix string, i int) string { return "bench:exp:" + prefix + ":" + strconv.Itoa(i) }

func (e *env) coll(c *conn) *mongo.Collection {
	return c.mongo.Database(e.opts.Database).Collection(expColl)
}

// prepareExpiring empties the target and, on MongoDB, creates the TTL
// index; a server without TTL indexes cannot run expiry workloads.
func (e *env) prepareExpiring(ctx context.Context, c *conn, r *Result) error {
	if err := e.reset(ctx, c); err != nil {
		return err
	}
	if c.Protocol == Mongo {
		if err := ensureTTLIndex(ctx, e.coll(c), "expireAt", r); err != nil {
			return err
		}
	}
	return nil
}

// errLateLoad marks a load whose projected end passed its deadline.
var errLateLoad = errors.New("bench: load would end after its deadline")

// loadItems writes items 0..n-1 named by prefix, item i expiring at due(i)
// (never when due returns the zero time), in batches over loadWorkers
// connections, and returns how many it wrote. With a non-zero deadline it
// stops with errLateLoad once the load, at the rate seen so far (after a
// tenth of it), would end after the deadline, or the deadline passes.
func (e *env) loadItems(ctx context.Context, c *conn, prefix string, n int, due func(int) time.Time, val []byte, what string, deadline time.Time) (int, error) {
	var next, done atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, loadWorkers)
	start := time.Now()
	stop := ticker(250*time.Millisecond, func() {
		d := done.Load()
		e.prog.Update("%s: %d/%d items, %.0f items/s", what, d, n, float64(d)/time.Since(start).Seconds())
	})
	defer stop()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	late := func() bool {
		if deadline.IsZero() {
			return false
		}
		now := time.Now()
		d := done.Load()
		if now.After(deadline) {
			return true
		}
		if d < int64(n/10) || d == 0 {
			return false
		}
		projected := start.Add(time.Duration(float64(now.Sub(start)) * float64(n) / float64(d)))
		return projected.After(deadline)
	}
	for range loadWorkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				from := int(next.Add(loadBatch)) - loadBatch
				if from >= n || ctx.Err() != nil {
					return
				}
				to := min(from+loadBatch, n)
				if err := e.writeBatch(ctx, c, prefix, from, to, due, val); err != nil {
					errs <- fmt.Errorf("%s: %w", what, err)
					cancel()
					return
				}
				done.Add(int64(to - from))
				if late() {
					errs <- errLateLoad
					cancel()
					return
				}
			}
		}()
	}
	wg.Wait()
	e.prog.Done()
	select {
	case err := <-errs:
		return int(done.Load()), err
	default:
		return int(done.Load()), ctx.Err()
	}
}

// loadBeforeDue writes n items named by prefix so that all are written
// opts.Lead before one due instant, and returns that instant and when the
// load ended. dueOf gives item i's expiry given the instant. A server's
// write rate on a growing data set cannot be known beforehand, so the
// first attempt's instant comes from a calibration sample with a wide
// margin; when a load's projected end passes the instant, the target is
// emptied and the load starts over with the instant pushed out by the rate
// that attempt saw, up to three attempts. before runs after every emptying
// (to write live items, say).
func (e *env) loadBeforeDue(ctx context.Context, c *conn, r *Result, prefix string, n int, dueOf func(i int, due time.Time) time.Time, val []byte, before func() error) (due, loaded time.Time, err error) {
	est, err := e.calibrate(ctx, c, r, n, value(len(val), 'c'))
	if err != nil {
		return due, loaded, err
	}
	const attempts = 3
	for attempt := 1; ; attempt++ {
		if before != nil {
			if err := before(); err != nil {
				return due, loaded, err
			}
		}
		start := time.Now()
		due = start.Add(est + e.opts.Lead)
		e.prog.Phase("%s load on %s: %d items due at %s (load estimated at %s)", prefix, c, n, due.Format("15:04:05.000"), est.Round(time.Millisecond))
		done, err := e.loadItems(ctx, c, prefix, n, func(i int) time.Time { return dueOf(i, due) }, val, prefix+" load", due.Add(-e.opts.Lead/2))
		if err == nil {
			return due, time.Now(), nil
		}
		if !errors.Is(err, errLateLoad) {
			return due, loaded, err
		}
		elapsed := time.Since(start)
		projected := time.Duration(float64(elapsed) * float64(n) / float64(max(done, 1)))
		if attempt == attempts {
			return due, loaded, fmt.Errorf("%s load: %d attempts could not write %d items before their due instant (last: %d in %s)", prefix, attempts, n, done, elapsed.Round(time.Millisecond))
		}
		r.notef("load attempt %d would have ended after its due instant (%d of %d items in %s); started over with more time", attempt, done, n, elapsed.Round(time.Millisecond))
		est = 2 * projected
		if err := e.prepareExpiring(ctx, c, r); err != nil {
			return due, loaded, err
		}
	}
}

func (e *env) writeBatch(ctx context.Context, c *conn, prefix string, from, to int, due func(int) time.Time, val []byte) error {
	if c.Protocol == RESP {
		pipe := c.rdb.Pipeline()
		for i := from; i < to; i++ {
			if d := due(i); d.IsZero() {
				pipe.Set(ctx, expKey(prefix, i), val, 0)
			} else {
				pipe.Do(ctx, "SET", expKey(prefix, i), val, "PXAT", d.UnixMilli())
			}
		}
		cmds, err := pipe.Exec(ctx)
		if err != nil {
			return err
		}
		for _, cmd := range cmds {
			if err := cmd.Err(); err != nil {
				return err
			}
		}
		return nil
	}
	docs := make([]any, 0, to-from)
	for i := from; i < to; i++ {
		d := bson.D{{Key: "_id", Value: prefix + ":" + strconv.Itoa(i)}, {Key: "v", Value: val}}
		if t := due(i); !t.IsZero() {
			d = append(d, bson.E{Key: "expireAt", Value: t})
		}
		docs = append(docs, d)
	}
	_, err := e.coll(c).InsertMany(ctx, docs, options.InsertMany().SetOrdered(false))
	return err
}

// loadLive writes opts.LiveItems items without expiry for foreground reads.
func (e *env) loadLive(ctx context.Context, c *conn) error {
	val := value(e.opts.ValueSize, 'l')
	_, err := e.loadItems(ctx, c, "live", e.opts.LiveItems, func(int) time.Time { return time.Time{} }, val, "live items", time.Time{})
	return err
}

// readLive reads one random live item and fails if it is missing.
func (e *env) readLive(ctx context.Context, c *conn, rng *rand.Rand) error {
	i := rng.IntN(e.opts.LiveItems)
	if c.Protocol == RESP {
		return c.rdb.Get(ctx, expKey("live", i)).Err()
	}
	return e.coll(c).FindOne(ctx, bson.D{{Key: "_id", Value: "live:" + strconv.Itoa(i)}}).Err()
}

// calibrate writes a sample of far-future items, times it, empties the
// target again and returns a generous estimate of the time to load n
// items: three times the sample's pace, since a store slows as it grows.
func (e *env) calibrate(ctx context.Context, c *conn, r *Result, n int, val []byte) (time.Duration, error) {
	sample := min(max(n/20, 1000), 50_000, n)
	far := time.Now().Add(time.Hour)
	start := time.Now()
	if _, err := e.loadItems(ctx, c, "cal", sample, func(int) time.Time { return far }, val, "calibrating load", time.Time{}); err != nil {
		return 0, err
	}
	per := time.Since(start) / time.Duration(sample)
	if err := e.prepareExpiring(ctx, c, r); err != nil {
		return 0, err
	}
	return 3 * per * time.Duration(n), nil
}

// readSample is one foreground read: when it started and how long it took.
type readSample struct {
	at  time.Time
	lat time.Duration
}

// foreground reads live items at opts.ReadRate per second over
// opts.Readers connections until stopped. A read that fails ends it
// (the error is returned by stop).
type foreground struct {
	stopCh  chan struct{}
	wg      sync.WaitGroup
	mu      sync.Mutex
	samples []readSample
	err     error
}

func (e *env) startForeground(ctx context.Context, c *conn) *foreground {
	f := &foreground{stopCh: make(chan struct{})}
	interval := time.Duration(float64(time.Second) * float64(e.opts.Readers) / float64(e.opts.ReadRate))
	for w := range e.opts.Readers {
		f.wg.Add(1)
		go func() {
			defer f.wg.Done()
			rng := rand.New(rand.NewPCG(uint64(w)+7, uint64(time.Now().UnixNano())))
			// Readers start staggered so their reads spread over the interval.
			next := time.Now().Add(interval * time.Duration(w) / time.Duration(e.opts.Readers))
			local := make([]readSample, 0, 1024)
			defer func() {
				f.mu.Lock()
				f.samples = append(f.samples, local...)
				f.mu.Unlock()
			}()
			for {
				if wait := time.Until(next); wait > 0 {
					select {
					case <-f.stopCh:
						return
					case <-ctx.Done():
						return
					case <-time.After(wait):
					}
				}
				select {
				case <-f.stopCh:
					return
				default:
				}
				t0 := time.Now()
				err := e.readLive(ctx, c, rng)
				local = append(local, readSample{at: t0, lat: time.Since(t0)})
				if err != nil {
					if ctx.Err() == nil {
						f.mu.Lock()
						f.err = fmt.Errorf("foreground read: %w", err)
						f.mu.Unlock()
					}
					return
				}
				// Fixed schedule; a reader that fell behind by more than one
				// interval skips the missed slots rather than bursting, so the
				// offered rate never exceeds ReadRate. Latency is service time.
				next = next.Add(interval)
				if now := time.Now(); next.Before(now.Add(-interval)) {
					next = now
				}
			}
		}()
	}
	return f
}

func (f *foreground) stop() ([]readSample, error) {
	close(f.stopCh)
	f.wg.Wait()
	return f.samples, f.err
}

// between returns the latencies of the reads started in [from, to).
func between(samples []readSample, from, to time.Time) []time.Duration {
	var out []time.Duration
	for _, s := range samples {
		if !s.at.Before(from) && s.at.Before(to) {
			out = append(out, s.lat)
		}
	}
	return out
}

// counterSample is one reading of the server's deletion counters.
type counterSample struct {
	at time.Time
	Counters
}

// poller reads the deletion counters every opts.Poll until stopped.
type poller struct {
	stopCh  chan struct{}
	done    chan struct{}
	mu      sync.Mutex
	samples []counterSample
	err     error
}

func (e *env) startPoller(ctx context.Context, c *conn) *poller {
	p := &poller{stopCh: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(p.done)
		t := time.NewTicker(e.opts.Poll)
		defer t.Stop()
		for {
			at := time.Now()
			cs, err := c.counters(ctx)
			p.mu.Lock()
			if err != nil {
				if ctx.Err() == nil {
					p.err = err
				}
				p.mu.Unlock()
				return
			}
			p.samples = append(p.samples, counterSample{at: at, Counters: cs})
			p.mu.Unlock()
			select {
			case <-p.stopCh:
				return
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	}()
	return p
}

// last returns the latest sample, if any.
func (p *poller) last() (counterSample, bool, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.samples) == 0 {
		return counterSample{}, false, p.err
	}
	return p.samples[len(p.samples)-1], true, p.err
}

func (p *poller) stop() ([]counterSample, error) {
	close(p.stopCh)
	<-p.done
	return p.samples, p.err
}

// errTimeout marks a wait that reached opts.Timeout.
var errTimeout = errors.New("bench: timed out")

// waitFor polls p until cond holds for its latest sample, the deadline
// passes (errTimeout) or the poller fails; it returns that sample.
func (e *env) waitFor(ctx context.Context, p *poller, deadline time.Time, what string, cond func(counterSample) bool) (counterSample, error) {
	for {
		s, ok, err := p.last()
		if err != nil {
			return s, err
		}
		if ok && cond(s) {
			return s, nil
		}
		if time.Now().After(deadline) {
			return s, errTimeout
		}
		if ok {
			e.prog.Update("%s: deleted %d, present %d", what, s.Deleted, s.Present)
		}
		select {
		case <-ctx.Done():
			return s, ctx.Err()
		case <-time.After(e.opts.Poll):
		}
	}
}

// firstSample returns the earliest sample at or after t for which cond
// holds.
func firstSample(samples []counterSample, t time.Time, cond func(counterSample) bool) (counterSample, bool) {
	for _, s := range samples {
		if !s.at.Before(t) && cond(s) {
			return s, true
		}
	}
	return counterSample{}, false
}
