package admin_test

import (
	"fmt"
	"io"
	"net/http"
	"testing"
	"time"

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
