package integration_test

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/mayfly/mayfly/integration/harness"
)

// The range-deletion storm: 1,000,000 clustered documents or time-series
// measurements fall due at one instant of the server's manual clock; the
// test reports how long until all are gone, the server's CPU time meanwhile
// (from /proc) and the p99 of findOne by _id on another collection in the
// 2 s before and the 2 s from the due instant. It is a benchmark: it runs only with MAYFLY_STORM=1.
//
//	MAYFLY_STORM=1 go test -count=1 -run TestRangeExpiryStorm -v ./integration/
func TestRangeExpiryStorm(t *testing.T) {
	if os.Getenv("MAYFLY_STORM") == "" {
		t.Skip("a benchmark: set MAYFLY_STORM=1 to run it")
	}
	const n = 1_000_000
	for _, kind := range []string{"clustered", "timeseries"} {
		t.Run(kind, func(t *testing.T) {
			s := harness.Start(t, "--manual-clock", "--set-parameter", "ttlMonitorSleepSecs=1")
			e := newTTLEnv(t, s)
			ctx := t.Context()
			reads := e.cl.Database("app").Collection("reads")
			var rd []any
			for i := range 1000 {
				rd = append(rd, bson.D{{Key: "_id", Value: i}, {Key: "v", Value: strings.Repeat("r", 100)}})
			}
			if _, err := reads.InsertMany(ctx, rd); err != nil {
				t.Fatal(err)
			}
			base := e.now().Add(-2 * time.Hour).Truncate(time.Hour)
			var c *mongo.Collection
			var advance time.Duration
			want := int64(n)
			if kind == "clustered" {
				c = e.createClustered("storm", 3*3600)
				advance = 2 * time.Hour // every _id in [base, base+1000 s] + 3 h is due
			} else {
				c = e.createTimeseries("storm", bson.D{{Key: "timeField", Value: "t"}}, 3*3600)
				advance = 3 * time.Hour // every bucket's start + 3 h + 1 h is due
				want = n / 1000         // 1,000 measurements a bucket; MongoDB counts buckets
			}
			load := time.Now()
			for b := 0; b < n; b += 10_000 {
				docs := make([]any, 0, 10_000)
				for i := b; i < b+10_000; i++ {
					at := dt(base.Add(time.Duration(i) * time.Millisecond))
					if kind == "clustered" {
						docs = append(docs, bson.D{{Key: "_id", Value: at}, {Key: "v", Value: i}})
					} else {
						docs = append(docs, bson.D{{Key: "t", Value: at}, {Key: "v", Value: i}})
					}
				}
				if _, err := c.InsertMany(ctx, docs); err != nil {
					t.Fatal(err)
				}
			}
			t.Logf("%s: loaded %d in %v", kind, n, time.Since(load).Round(time.Millisecond))

			idle0, idleStart := processCPU(t, s.Pid()), time.Now()
			before := findOneLatencies(ctx, t, reads, 2*time.Second, nil)
			// The server's CPU per second while it serves the reads alone.
			readRate := float64(processCPU(t, s.Pid())-idle0) / float64(time.Since(idleStart))
			deleted0 := e.counter("deletedDocuments")
			cpu0 := processCPU(t, s.Pid())
			stop := make(chan struct{})
			var during []time.Duration
			var wg sync.WaitGroup
			wg.Add(1)
			go func() {
				defer wg.Done()
				during = findOneLatencies(ctx, t, reads, time.Minute, stop)
			}()
			start := time.Now()
			s.Advance(t, advance)
			var gone, cpuGone time.Duration
			for {
				if e.counter("deletedDocuments")-deleted0 >= want {
					gone = time.Since(start)
					cpuGone = processCPU(t, s.Pid()) - cpu0
					break
				}
				if time.Since(start) > time.Minute {
					t.Fatalf("not all gone after a minute: %d of %d", e.counter("deletedDocuments")-deleted0, want)
				}
				waitTick(5 * time.Millisecond)
			}
			// The reads go on for at least 2 s after the due instant, so that
			// a short storm's p99 has as many samples as the one before and
			// includes what follows the deletion (its flush and compaction).
			if rest := 2*time.Second - time.Since(start); rest > 0 {
				waitTick(rest)
			}
			close(stop)
			wg.Wait()
			// The CPU until all were gone, less what the reads cost meanwhile.
			cpu := cpuGone - time.Duration(readRate*float64(gone))
			if cnt, err := c.CountDocuments(ctx, bson.D{}); err != nil || cnt != 0 {
				t.Fatalf("%d left, %v", cnt, err)
			}
			p99b, p99d := percentile(before, 0.99), percentile(during, 0.99)
			t.Logf("%s: %d due at once (%d deletedDocuments): all gone after %v, server CPU %.3f s until then (%.3f s less the reads' share), findOne p99 %v before (%d reads) -> %v in the 2 s from the due instant (%d reads), %.2fx",
				kind, n, want, gone.Round(time.Millisecond), cpuGone.Seconds(), cpu.Seconds(), p99b, len(before), p99d, len(during), float64(p99d)/float64(p99b))
		})
	}
}

// findOneLatencies runs findOne by _id on c from 4 connections, 500 a
// second each, for d or until stop closes, and returns the latencies.
func findOneLatencies(ctx context.Context, t *testing.T, c *mongo.Collection, d time.Duration, stop <-chan struct{}) []time.Duration {
	var mu sync.Mutex
	var out []time.Duration
	var wg sync.WaitGroup
	end := time.After(d)
	done := make(chan struct{})
	go func() {
		select {
		case <-end:
		case <-stop:
		}
		close(done)
	}()
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tick := time.NewTicker(2 * time.Millisecond)
			defer tick.Stop()
			for i := w; ; i += 4 {
				select {
				case <-done:
					return
				case <-tick.C:
				}
				t0 := time.Now()
				err := c.FindOne(ctx, bson.D{{Key: "_id", Value: i % 1000}}, options.FindOne()).Err()
				el := time.Since(t0)
				if err != nil {
					t.Errorf("findOne: %v", err)
					return
				}
				mu.Lock()
				out = append(out, el)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return out
}

func percentile(d []time.Duration, p float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	return s[min(len(s)-1, int(float64(len(s))*p))].Round(time.Microsecond)
}

// processCPU returns the user and system CPU time of process pid, from
// /proc/<pid>/stat (in clock ticks of 10 ms).
func processCPU(t *testing.T, pid int) time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Fatal(err)
	}
	// The fields after the command name, which is in parentheses.
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+2:]))
	utime, _ := strconv.ParseInt(f[11], 10, 64)
	stime, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(utime+stime) * 10 * time.Millisecond
}

// waitTick blocks for d of real time between polls of a counter.
func waitTick(d time.Duration) { <-time.After(d) }
