package docdb

import (
	"context"
	"errors"
	"flag"
	"io"
	"log/slog"
	"math/rand/v2"
	"os"
	"runtime/pprof"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/catalog"
	"github.com/mayfly/mayfly/internal/expiry"
	"github.com/mayfly/mayfly/internal/storage"
)

// The TTL delete storm (many documents due at once are deleted in bounded,
// paced batches without stalling the foreground): documents of a TTL
// index fall due together or steadily, the real expiry engine deletes them
// on a real clock from a store on disk, and a foreground reader measures
// findOne latency before and during the deletion. Run it alone, once:
//
//	go test ./internal/docdb -run '^$' -bench BenchmarkTTLStorm -benchtime 1x -timeout 30m
//
// Targets: 1,000,000 documents due in the same second all deleted within
// 20 s; p99 lag under 1 s with 50,000 documents falling due per second.

var (
	stormDocs    = flag.Int("ttl-storm-docs", 1_000_000, "documents of BenchmarkTTLStorm")
	stormProfile = flag.String("ttl-storm-cpuprofile", "", "write a CPU profile of BenchmarkTTLStorm's deletion phase (from D to the last deletion) to this file")
	stormBackoff = flag.Bool("ttl-storm-backoff", true, "BenchmarkTTLStorm with the expiry engine's foreground back-off (false: to measure the raw deletion capacity)")
)

// shiftedClock is time.Now plus an offset that is set once, before the
// expiry engine runs, so documents can be loaded long before they fall due
// and the storm still starts a moment after loading ends.
type shiftedClock struct{ shift atomic.Int64 }

func (c *shiftedClock) Now() time.Time { return time.Now().Add(time.Duration(c.shift.Load())) }

// setTo shifts the clock so that it reads t now.
func (c *shiftedClock) setTo(t time.Time) { c.shift.Store(int64(time.Until(t))) }

// readSample is one foreground findOne: when it started (clock time) and
// how long it took.
type readSample struct {
	at  time.Time
	lat time.Duration
}

func BenchmarkTTLStorm(b *testing.B) {
	n := *stormDocs
	for _, sc := range []struct {
		name   string
		spread time.Duration // the documents fall due evenly over spread
	}{
		{"same-second", 0},
		{"steady-50k-per-s", time.Duration(n/50_000) * time.Second},
	} {
		b.Run(sc.name, func(b *testing.B) {
			for b.Loop() {
				b.StopTimer()
				runTTLStorm(b, n, sc.spread)
				b.StartTimer()
			}
		})
	}
}

// runTTLStorm loads n documents due from D over spread, lets the engine
// delete them and reports the figures. The benchmark timer runs from D to
// the last deletion.
func runTTLStorm(b *testing.B, n int, spread time.Duration) {
	ctx := context.Background()
	clock := &shiftedClock{}
	st, err := storage.Open(storage.Options{Dir: b.TempDir(), Logger: slog.New(slog.DiscardHandler), Now: clock.Now})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	cfg := expiry.DefaultConfig()
	cfg.Now = clock.Now
	cfg.Backoff.Disabled = !*stormBackoff
	eng, err := expiry.New(cfg)
	if err != nil {
		b.Fatal(err)
	}
	defer eng.Close()
	e, err := Open(Options{Store: st, Now: clock.Now, Expiry: eng, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()

	due := time.Now().Add(24 * time.Hour).Truncate(time.Second)
	if _, err := e.CreateIndexes(ctx, "bench", "storm", indexSpecs(d("key", d("at", int32(1)), "name", "at_1", "expireAfterSeconds", int32(0)))); err != nil {
		b.Fatal(err)
	}
	pad := bson.Binary{Data: make([]byte, 100)}
	load := func(coll string, count int, at func(i int) any) {
		for start := 0; start < count; start += maxBatchDocs {
			var docs []bson.Raw
			for i := start; i < min(start+maxBatchDocs, count); i++ {
				raw, err := bson.Marshal(d("_id", int32(i), "at", at(i), "user", int32(i%1000), "pad", pad))
				if err != nil {
					b.Fatal(err)
				}
				docs = append(docs, raw)
			}
			res, err := e.Insert(ctx, "bench", coll, InsertRequest{Documents: docs, Ordered: true})
			if err != nil || len(res.WriteErrors) > 0 {
				b.Fatalf("load %s: %v %v", coll, err, res.WriteErrors)
			}
		}
	}
	const live = 100_000
	load("live", live, func(int) any { return "never" })
	loadStart := time.Now()
	load("storm", n, func(i int) any {
		off := time.Duration(0)
		if spread > 0 {
			off = time.Duration(int64(spread) * int64(i) / int64(n))
		}
		return bson.NewDateTimeFromTime(due.Add(off))
	})
	b.Logf("loaded %d documents in %s", n, time.Since(loadStart).Round(time.Millisecond))
	// Settle the LSM as hours of gradual writes would have: the storm's
	// own flushes and compactions are part of the measurement, the load's
	// are not.
	if err := st.Flush(); err != nil {
		b.Fatal(err)
	}
	settle := time.Now()
	if err := st.Compact(ctx, []byte{0}, []byte{0xff}); err != nil {
		b.Fatal(err)
	}
	b.Logf("compacted in %s", time.Since(settle).Round(time.Millisecond))

	// Two seconds before D: the reader starts, then the sweeper.
	const before = 2 * time.Second
	clock.setTo(due.Add(-before))
	var samples []readSample
	var mu sync.Mutex
	stop := make(chan struct{})
	readerDone := make(chan struct{})
	go func() {
		defer close(readerDone)
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
			}
			at := clock.Now()
			t0 := time.Now()
			cur, err := e.Find(ctx, "bench", "live", FindRequest{Filter: d("_id", rand.Int32N(live)), Limit: 1})
			if err != nil {
				b.Error(err)
				return
			}
			if _, err := cur.Next(ctx); err != nil && !errors.Is(err, io.EOF) {
				b.Error(err)
			}
			cur.Close()
			lat := time.Since(t0)
			eng.ObserveForeground(lat)
			mu.Lock()
			samples = append(samples, readSample{at, lat})
			mu.Unlock()
		}
	}()
	runCtx, cancelRun := context.WithCancel(ctx)
	runDone := make(chan error, 1)
	go func() { runDone <- eng.Run(runCtx) }()
	defer func() {
		cancelRun()
		<-runDone
	}()

	time.Sleep(before) // until D
	if *stormProfile != "" {
		f, err := os.Create(*stormProfile)
		if err != nil {
			b.Fatal(err)
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			b.Fatal(err)
		}
		defer pprof.StopCPUProfile()
	}
	b.StartTimer()
	deleted := func() int64 {
		for _, k := range eng.Stats().Kinds {
			if k.Kind == expiry.KindTTLIndex {
				return k.DeletedItems
			}
		}
		return 0
	}
	deadline := time.Now().Add(10 * time.Minute)
	for deleted() < int64(n) {
		if time.Now().After(deadline) {
			b.Fatalf("only %d of %d deleted after 10 minutes", deleted(), n)
		}
		time.Sleep(5 * time.Millisecond)
	}
	done := clock.Now()
	b.StopTimer() // the caller starts it again for b.Loop
	close(stop)
	<-readerDone

	st2 := eng.Stats()
	var lag expiry.Histogram
	for _, k := range st2.Kinds {
		if k.Kind == expiry.KindTTLIndex {
			lag = k.Lag
		}
	}
	lastDue := due.Add(spread)
	took := done.Sub(due)
	var pre, during []time.Duration
	for _, s := range samples {
		switch {
		case s.at.Before(due):
			pre = append(pre, s.lat)
		case !s.at.After(done):
			during = append(during, s.lat)
		}
	}
	b.ReportMetric(took.Seconds(), "s-due-to-all-deleted")
	b.ReportMetric(done.Sub(lastDue).Seconds(), "s-last-due-to-all-deleted")
	b.ReportMetric(float64(n)/took.Seconds(), "deletes/s")
	b.ReportMetric(float64(lag.P50().Milliseconds()), "lag-p50-ms")
	b.ReportMetric(float64(lag.P99().Milliseconds()), "lag-p99-ms")
	b.ReportMetric(float64(lag.Max.Milliseconds()), "lag-max-ms")
	b.ReportMetric(float64(p99(pre).Microseconds()), "findOne-p99-before-us")
	b.ReportMetric(float64(p99(during).Microseconds()), "findOne-p99-during-us")
	b.Logf("%d documents due over %s: all deleted %s after the first was due, %s after the last; %.0f deletes/s; lag p50 %s p99 %s max %s; "+
		"findOne p99 %s before (%d reads), %s during (%d reads); reaps %d, reap time %s, back-off level %.2f (%d of %d windows slow, %d pauses)",
		n, spread, took.Round(time.Millisecond), done.Sub(lastDue).Round(time.Millisecond), float64(n)/took.Seconds(),
		lag.P50().Round(time.Millisecond), lag.P99().Round(time.Millisecond), lag.Max.Round(time.Millisecond),
		p99(pre), len(pre), p99(during), len(during), st2.Reaps, st2.ReapTime.Round(time.Millisecond),
		st2.Backoff.Level, st2.Backoff.SlowWindows, st2.Backoff.Windows, st2.Backoff.Pauses)
	if left := len(storedIDs(b, st, e, "bench", "storm")); left != 0 {
		b.Fatalf("%d documents left in storage", left)
	}
}

// p99 returns the 99th percentile of ds (0 for none).
func p99(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[(len(s)*99)/100]
}

// storedIDs counts what is physically left of db.coll, bypassing every
// read path.
func storedIDs(b *testing.B, st *storage.Store, e *Engine, db, coll string) [][]byte {
	c := e.lookupColl(db, coll)
	if c == nil {
		return nil
	}
	p := catalog.DocPrefix(c.Meta.ID)
	it, err := st.NewIter(p, storage.PrefixEnd(p))
	if err != nil {
		b.Fatal(err)
	}
	defer it.Close()
	var out [][]byte
	for ok := it.First(); ok; ok = it.Next() {
		out = append(out, append([]byte(nil), it.Key()...))
	}
	return out
}
