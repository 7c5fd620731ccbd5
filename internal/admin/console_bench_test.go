package admin_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/admin"
	"github.com/mayfly/mayfly/internal/docdb"
	"github.com/mayfly/mayfly/internal/kv"
)

// benchItems is how many items the console's benchmarks load.
const benchItems = 1_000_000

// newBenchConsole loads benchItems Redis keys of ten prefixes: a tenth
// already due (the backlog), the rest spread evenly over the next week.
func newBenchConsole(b *testing.B) *consoleEnv {
	b.Helper()
	e := newConsoleEnv(b)
	now := e.clock.Now()
	prefixes := []string{"user", "cart", "session", "token", "cache", "rate", "lock", "job", "feed", "otp"}
	const chunk = 10_000
	week := 7 * 24 * time.Hour
	for start := 0; start < benchItems; start += chunk {
		tx := e.kv.Begin()
		if err := tx.Use(0); err != nil {
			b.Fatal(err)
		}
		for i := start; i < start+chunk; i++ {
			at := now.Add(-time.Minute + time.Duration(i)*(week/benchItems))
			if i%10 == 0 {
				at = now.Add(-time.Duration(i) * time.Millisecond)
			}
			if _, err := tx.Set(fmt.Appendf(nil, "%s:%d", prefixes[i%len(prefixes)], i), []byte("v"), kv.SetOptions{ExpireAt: at.UnixMilli()}); err != nil {
				b.Fatal(err)
			}
		}
		if err := tx.Commit(); err != nil {
			b.Fatal(err)
		}
	}
	return e
}

func benchGet(b *testing.B, url string) {
	resp, err := http.Get(url)
	if err != nil {
		b.Fatal(err)
	}
	n, _ := io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b.Fatalf("GET %s: %d", url, resp.StatusCode)
	}
	b.SetBytes(n)
}

// BenchmarkConsole measures each console endpoint over benchItems items,
// and the requests the overview page makes when it loads.
func BenchmarkConsole(b *testing.B) {
	e := newBenchConsole(b)
	e.console.Sample()
	for range liveBenchSamples {
		e.clock.Add(time.Second)
		e.console.Sample()
	}
	for _, ep := range []string{
		"/v1/console/timeline?span=minute",
		"/v1/console/timeline?span=hour",
		"/v1/console/timeline?span=day",
		"/v1/console/timeline?span=week",
		"/v1/console/timeline?span=hour&source=redis_keys:db0",
		"/v1/console/sources",
		"/v1/console/live",
		"/v1/console/storage",
	} {
		b.Run(ep, func(b *testing.B) {
			for b.Loop() {
				benchGet(b, e.url+ep)
			}
		})
	}
	// The overview: the page, its script and style, then the hour's
	// timeline, the sources and the live samples, one after another.
	b.Run("overview page load", func(b *testing.B) {
		for b.Loop() {
			for _, p := range []string{"/", "/console/app.js", "/console/app.css", "/v1/console/timeline?span=hour", "/v1/console/sources", "/v1/console/live"} {
				benchGet(b, e.url+p)
			}
		}
	})
}

// liveBenchSamples fills the live ring: 15 minutes of samples.
const liveBenchSamples = 15 * 60

// BenchmarkConsoleTTLIndex measures PATCH /v1/ttl/indexes/{source} over a
// TTL index of benchItems documents dated evenly over the last week with
// expireAfterSeconds of a week: the dry run of one day, which would make
// six sevenths of them due at once and reads each of those; the dry run
// of two weeks, which makes none due; and applying a change (collMod,
// metadata only), back and forth between two values that make none due.
func BenchmarkConsoleTTLIndex(b *testing.B) {
	e := newConsoleEnv(b)
	ctx := context.Background()
	const week = 7 * 24 * 3600
	if _, err := e.db.CreateIndexes(ctx, "app", "sessions", []docdb.IndexSpec{{Key: bson.D{{Key: "at", Value: int32(1)}}, Name: "at_1",
		Options: bson.D{{Key: "expireAfterSeconds", Value: int32(week)}}}}); err != nil {
		b.Fatal(err)
	}
	now := e.clock.Now()
	const chunk = 10_000
	for start := 0; start < benchItems; start += chunk {
		docs := make([]bson.Raw, 0, chunk)
		for i := start; i < start+chunk; i++ {
			at := now.Add(-time.Duration(i) * (week * time.Second / benchItems))
			raw, err := bson.Marshal(bson.D{{Key: "_id", Value: int32(i)}, {Key: "at", Value: bson.NewDateTimeFromTime(at)}})
			if err != nil {
				b.Fatal(err)
			}
			docs = append(docs, raw)
		}
		if _, err := e.db.Insert(ctx, "app", "sessions", docdb.InsertRequest{Documents: docs, Ordered: true}); err != nil {
			b.Fatal(err)
		}
	}
	c, err := admin.NewClient(e.url, "")
	if err != nil {
		b.Fatal(err)
	}
	const source = "ttl_index:app.sessions.at_1"
	b.Run("dry run, 857,142 would go", func(b *testing.B) {
		for b.Loop() {
			dr, err := c.DryRunTTLIndex(ctx, source, admin.UpdateTTLIndexRequest{ExpireAfterSeconds: secs(24 * 3600)})
			if err != nil || dr.WouldDelete < benchItems*6/7-1 {
				b.Fatalf("dry run %+v, %v", dr, err)
			}
		}
	})
	b.Run("dry run, none would go", func(b *testing.B) {
		for b.Loop() {
			if dr, err := c.DryRunTTLIndex(ctx, source, admin.UpdateTTLIndexRequest{ExpireAfterSeconds: secs(2 * week)}); err != nil || dr.WouldDelete != 0 {
				b.Fatalf("dry run %+v, %v", dr, err)
			}
		}
	})
	b.Run("apply", func(b *testing.B) {
		n := 0
		for b.Loop() {
			n++
			if _, err := c.UpdateTTLIndex(ctx, source, admin.UpdateTTLIndexRequest{ExpireAfterSeconds: secs(float64(week + n%2))}); err != nil {
				b.Fatal(err)
			}
		}
	})
}
