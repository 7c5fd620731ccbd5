package docdb

import (
	"context"
	"slices"
	"syscall"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/storage"
)

// openBenchEngine opens an engine on a store in dir (on disk, group
// durability), with the change log on or off.
func openBenchEngine(b *testing.B, logOn bool) *Engine {
	b.Helper()
	st, err := storage.Open(storage.Options{Dir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	e, err := Open(Options{Store: st, ChangeLog: logOn})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { e.Close() })
	return e
}

// BenchmarkInsertChangeLog compares insert throughput with the change log
// on and off: one insertOne per operation (a storage batch each), and
// insertMany of 100 documents.
func BenchmarkInsertChangeLog(b *testing.B) {
	pad := make([]byte, 100)
	for _, per := range []int{1, 100} {
		for _, on := range []bool{false, true} {
			name := "log=off"
			if on {
				name = "log=on"
			}
			b.Run(name+"/docs="+itoa64(int64(per)), func(b *testing.B) {
				e := openBenchEngine(b, on)
				ctx := context.Background()
				id := 0
				b.ReportAllocs()
				cpu0 := processCPU()
				for b.Loop() {
					docs := make([]bson.Raw, per)
					for i := range docs {
						id++
						docs[i], _ = bson.Marshal(d("_id", int32(id), "n", int32(id%100), "s", "some text", "pad", bson.Binary{Data: pad}))
					}
					if _, err := e.Insert(ctx, "bench", "c", InsertRequest{Documents: docs, Ordered: true}); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(id)/b.Elapsed().Seconds(), "docs/s")
				b.ReportMetric(float64((processCPU()-cpu0).Nanoseconds())/float64(id), "cpu-ns/doc")
			})
		}
	}
}

// processCPU returns the CPU time (user and system) the process has used:
// on a machine shared with other work it measures the cost of a write
// better than the wall time does.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkChangeEventLatency measures how long an insert takes to reach a
// change stream waiting for events: from the insert call to the waiting
// NextBatch returning its event, reported as p50 and p99.
func BenchmarkChangeEventLatency(b *testing.B) {
	e := openBenchEngine(b, true)
	ctx := context.Background()
	cs, err := e.WatchChanges(ctx, ChangeStreamRequest{DB: "bench", Coll: "c"})
	if err != nil {
		b.Fatal(err)
	}
	got := make(chan time.Time)
	stop := make(chan struct{})
	go func() {
		for {
			batch, err := cs.NextBatch(ctx, -1, time.Second)
			if err != nil {
				return
			}
			for range batch {
				got <- time.Now()
			}
			select {
			case <-stop:
				return
			default:
			}
		}
	}()
	var lat []time.Duration
	id := 0
	for b.Loop() {
		id++
		raw, _ := bson.Marshal(d("_id", int32(id)))
		start := time.Now()
		if _, err := e.Insert(ctx, "bench", "c", InsertRequest{Documents: []bson.Raw{raw}, Ordered: true}); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, (<-got).Sub(start))
	}
	close(stop)
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
}
