package bench

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// docScaleColl is docscale's collection.
const docScaleColl = "docscale"

// docScaleOwners is how many distinct owners docscale's documents have,
// the values of its owner index.
const docScaleOwners = 100_000

// runDocScale loads opts.ScaleDocs documents into a collection with a TTL
// index on expireAt (every second document expires, far in the future)
// and two secondary indexes (owner and seq), and measures what a large
// collection costs: the load's insert rate, the server's resident memory
// once loaded (serverStatus mem.resident), the latency of findOne by _id
// at opts.ReadRate reads per second alone, and again while
// opts.ScaleInsertRate documents per second are inserted by insertOne.
func runDocScale(ctx context.Context, e *env, c *conn) Result {
	r := Result{Target: c.Label, Protocol: c.Protocol, Workload: "docscale"}
	o := e.opts
	if err := e.reset(ctx, c); err != nil {
		r.Error = err.Error()
		return r
	}
	coll := c.mongo.Database(o.Database).Collection(docScaleColl)
	if err := ensureTTLIndex(ctx, coll, "expireAt", &r); err != nil && !errors.Is(err, errTTLRefused) {
		r.Error = err.Error()
		return r
	}
	for _, field := range []string{"owner", "seq"} {
		if _, err := coll.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: field, Value: 1}}}); err != nil {
			r.Error = fmt.Sprintf("create index on %s: %v", field, err)
			return r
		}
	}
	payload := string(value(o.ValueSize, 'd'))
	far := time.Now().Add(sparseTTL)
	var next atomic.Int64
	insert := func(ctx context.Context, from, to int64) error {
		docs := make([]any, 0, to-from)
		for i := from; i < to; i++ {
			docs = append(docs, docScaleDocument(i, far, payload))
		}
		_, err := coll.InsertMany(ctx, docs, options.InsertMany().SetOrdered(false))
		return err
	}

	e.prog.Phase("docscale load on %s: %d documents", c, o.ScaleDocs)
	start := time.Now()
	stop := ticker(250*time.Millisecond, func() {
		d := min(next.Load(), int64(o.ScaleDocs))
		e.prog.Update("docscale load: %d/%d documents, %.0f documents/s", d, o.ScaleDocs, float64(d)/time.Since(start).Seconds())
	})
	err := parallel(ctx, loadWorkers, func(ctx context.Context) error {
		for {
			from := next.Add(loadBatch) - loadBatch
			if from >= int64(o.ScaleDocs) {
				return nil
			}
			if err := insert(ctx, from, min(from+loadBatch, int64(o.ScaleDocs))); err != nil {
				return fmt.Errorf("load: %w", err)
			}
		}
	})
	stop()
	e.prog.Done()
	if err != nil {
		r.Error = err.Error()
		return r
	}
	r.add("documents", float64(o.ScaleDocs), "docs", Neither)
	r.add("load.docs_per_s", float64(o.ScaleDocs)/time.Since(start).Seconds(), "docs/s", Higher)
	if err := readResident(ctx, c, &r); err != nil {
		r.Error = err.Error()
		return r
	}

	loaded := int64(o.ScaleDocs)
	var misses atomic.Int64
	read := func(ctx context.Context, k int64) error {
		return findOne(ctx, coll, bson.D{{Key: "_id", Value: k * 7919 % loaded}}, &misses)
	}
	e.prog.Phase("docscale on %s: findOne by _id at %d/s for %s", c, o.ReadRate, o.Duration)
	alone, _, err := paced(ctx, float64(o.ReadRate), o.Readers, o.Duration, read)
	if err != nil {
		r.Error = fmt.Sprintf("findOne alone: %v", err)
		return r
	}
	r.addLatencies("find_id_alone", alone.Summary())

	e.prog.Phase("docscale on %s: findOne by _id at %d/s while %d insertOne/s for %s", c, o.ReadRate, o.ScaleInsertRate, o.Duration)
	ins := next.Load() // ids from here on are free
	var during *Histogram
	var inserted int64
	var insErr, readErr error
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		_, inserted, insErr = paced(ctx, float64(o.ScaleInsertRate), max(o.Clients, 1), o.Duration, func(ctx context.Context, k int64) error {
			_, err := coll.InsertOne(ctx, docScaleDocument(ins+k, far, payload))
			return err
		})
	}()
	go func() {
		defer wg.Done()
		during, _, readErr = paced(ctx, float64(o.ReadRate), o.Readers, o.Duration, read)
	}()
	wg.Wait()
	if err := errors.Join(insErr, readErr); err != nil {
		r.Error = fmt.Sprintf("findOne while inserting: %v", err)
		return r
	}
	r.addLatencies("find_id_during", during.Summary())
	r.add("inserts_during.docs_per_s", float64(inserted)/o.Duration.Seconds(), "docs/s", Higher)
	if m := misses.Load(); m > 0 {
		r.notef("%d reads found no document", m)
	}
	if o.ScaleKeep {
		return r
	}
	if err := e.reset(ctx, c); err != nil {
		r.notef("cleanup: %v", err)
	}
	return r
}

// docScaleDocument returns docscale's document i: every second one
// expires at expireAt.
func docScaleDocument(i int64, expireAt time.Time, payload string) bson.D {
	d := bson.D{
		{Key: "_id", Value: i},
		{Key: "owner", Value: "user" + strconv.FormatInt(i%docScaleOwners, 10)},
		{Key: "seq", Value: i},
		{Key: "v", Value: payload},
	}
	if i%2 == 1 {
		d = append(d, bson.E{Key: "expireAt", Value: expireAt})
	}
	return d
}

// readResident records the server's resident memory from serverStatus
// (mem.resident, in MiB) as rss in bytes.
func readResident(ctx context.Context, c *conn, r *Result) error {
	var st struct {
		Mem struct {
			Resident float64 `bson:"resident"`
		} `bson:"mem"`
	}
	if err := c.mongo.Database("admin").RunCommand(ctx, bson.D{{Key: "serverStatus", Value: 1}}).Decode(&st); err != nil {
		return fmt.Errorf("serverStatus: %w", err)
	}
	if st.Mem.Resident <= 0 {
		r.notef("serverStatus has no mem.resident")
		return nil
	}
	r.add("rss", st.Mem.Resident*(1<<20), "bytes", Lower)
	return nil
}

// parallel runs f on n goroutines and returns the first error; the first
// error cancels the others' ctx.
func parallel(ctx context.Context, n int, f func(ctx context.Context) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if errs[i] = f(ctx); errs[i] != nil {
				cancel()
			}
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// paced calls f(k) for k = 0, 1, ... at rate calls per second for d, over
// workers goroutines, each call k due at start + k/rate. A call's latency
// is counted from when it was due, not from when a worker got to it, so
// that a server that falls behind shows in the latency instead of
// slowing the load (an open loop). It returns the latencies and how many
// calls were made.
func paced(ctx context.Context, rate float64, workers int, d time.Duration, f func(ctx context.Context, k int64) error) (*Histogram, int64, error) {
	total := int64(rate * d.Seconds())
	start := time.Now()
	var next atomic.Int64
	var mu sync.Mutex
	var h Histogram
	err := parallel(ctx, workers, func(ctx context.Context) error {
		var own Histogram
		defer func() {
			mu.Lock()
			h.Merge(&own)
			mu.Unlock()
		}()
		for {
			k := next.Add(1) - 1
			if k >= total {
				return nil
			}
			due := start.Add(time.Duration(float64(k) / rate * float64(time.Second)))
			if wait := time.Until(due); wait > 0 {
				select {
				case <-time.After(wait):
				case <-ctx.Done():
					return ctx.Err()
				}
			}
			if err := f(ctx, k); err != nil {
				return err
			}
			own.Record(time.Since(due))
		}
	})
	return &h, min(next.Load(), total), err
}
