package integration_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/redis/go-redis/v9"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/mayfly/mayfly/integration/harness"
)

// The web console in a real browser: Debian's Chromium, headless, driven
// by chromedp, against `mayfly serve` on its manual clock, loaded with
// Redis keys, a TTL index and a TTL policy. Each page's screenshot is
// written to $MAYFLY_ARTIFACTS, or to the test's temporary directory,
// whose path is logged.

// chromiumPath finds a Chromium binary, or "" when there is none.
func chromiumPath() string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "headless-shell"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// consoleTimeline is the part of /v1/console/timeline the test reads.
type consoleTimeline struct {
	Now     time.Time `json:"now"`
	Sources []struct {
		Name    string  `json:"name"`
		Backlog int64   `json:"backlog"`
		Counts  []int64 `json:"counts"`
	} `json:"sources"`
}

func consoleGet(t *testing.T, s *harness.Server, path string, v any) {
	t.Helper()
	resp, err := http.Get("http://" + s.HTTPAddr + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s: %s", path, resp.Status, body)
	}
	if err := json.Unmarshal(body, v); err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
}

func TestConsoleInBrowser(t *testing.T) {
	chrome := chromiumPath()
	if chrome == "" {
		t.Skip("no chromium binary on PATH (apt-get install -y chromium); the web console's browser test needs one")
	}
	artifacts := os.Getenv("MAYFLY_ARTIFACTS")
	if artifacts == "" {
		artifacts = t.TempDir()
	}
	if err := os.MkdirAll(artifacts, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshots in %s", artifacts)

	const token = "console-test-token-0123456789"
	tokenFile := filepath.Join(t.TempDir(), "tokens")
	if err := os.WriteFile(tokenFile, []byte(token+" *\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := harness.Start(t, "--manual-clock", "--set-parameter", "ttlMonitorSleepSecs=1", "--admin-token-file", tokenFile)
	ctx := t.Context()
	var tl consoleTimeline
	consoleGet(t, s, "/v1/console/timeline?span=hour", &tl)
	now := tl.Now

	// Redis: 5 keys due in the first minute, 3 in minute 10 of the hour.
	rc := redis.NewClient(&redis.Options{Addr: s.RespAddr})
	defer rc.Close()
	for i := range 8 {
		at := now.Add(30 * time.Second)
		if i >= 5 {
			at = now.Add(10*time.Minute + 30*time.Second)
		}
		if err := rc.Set(ctx, fmt.Sprintf("session:%d", i), "v", 0).Err(); err != nil {
			t.Fatal(err)
		}
		if err := rc.PExpireAt(ctx, fmt.Sprintf("session:%d", i), at).Err(); err != nil {
			t.Fatal(err)
		}
	}
	// MongoDB: a TTL index (expireAfterSeconds 3600) with 4 documents due in
	// minute 20, and a policy collection of 6 documents dated 30 minutes ago.
	cl, err := mongo.Connect(options.Client().ApplyURI("mongodb://" + s.MongoAddr + "/?directConnection=true").SetTimeout(30 * time.Second))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Disconnect(context.Background())
	sessions := cl.Database("app").Collection("sessions")
	if _, err := sessions.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "at", Value: 1}}, Options: options.Index().SetExpireAfterSeconds(3600)}); err != nil {
		t.Fatal(err)
	}
	for i := range 4 {
		if _, err := sessions.InsertOne(ctx, bson.D{{Key: "_id", Value: i}, {Key: "at", Value: now.Add(-40*time.Minute + 30*time.Second)}}); err != nil {
			t.Fatal(err)
		}
	}
	events := cl.Database("app").Collection("events")
	for i := range 6 {
		if _, err := events.InsertOne(ctx, bson.D{{Key: "_id", Value: i}, {Key: "at", Value: now.Add(-30 * time.Minute)}}); err != nil {
			t.Fatal(err)
		}
	}
	patchPolicy(t, s, token, `{"field":"at","enabled":true,"expirationOffset":"2h"}`)
	eventually(t, time.Minute, "the events policy to be active", func() bool {
		var p struct{ State string }
		req, _ := http.NewRequest("GET", "http://"+s.HTTPAddr+"/v1/ttl/policies/events", nil)
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return false
		}
		defer resp.Body.Close()
		json.NewDecoder(resp.Body).Decode(&p)
		return p.State == "ACTIVE"
	})

	b := newConsoleBrowser(t, chrome, artifacts)
	do, attr, shot, browser := b.do, b.attr, b.shot, b.ctx
	base := "http://" + s.HTTPAddr

	// The overview: the timeline's table holds the counts the data gives.
	start := time.Now()
	do(chromedp.Navigate(base+"/"), chromedp.WaitVisible(chromedp.CSS("#sources tbody tr")), chromedp.WaitReady(chromedp.CSS("#timeline canvas")))
	t.Logf("overview loaded in %v", time.Since(start))
	cell := func(source string, bucket int) int64 {
		t.Helper()
		sel := fmt.Sprintf(`#timeline-table tr[data-source=%q] td[data-count]`, source)
		js := fmt.Sprintf(`document.querySelectorAll(%q)[%d].dataset.count`, sel, bucket)
		text, err := chromedp.Run(browser, chromedp.Evaluate[string](js))
		if err != nil {
			t.Fatalf("%s bucket %d: %v", source, bucket, err)
		}
		n, _ := strconv.ParseInt(text, 10, 64)
		return n
	}
	for _, c := range []struct {
		source string
		bucket int
		want   int64
	}{
		{"redis_keys:db0", 0, 5}, {"redis_keys:db0", 10, 3}, {"redis_keys:db0", 1, 0},
		{"ttl_index:app.sessions.at_1", 20, 4}, {"ttl_index:app.sessions.at_1", 19, 0},
	} {
		if got := cell(c.source, c.bucket); got != c.want {
			t.Errorf("timeline %s bucket %d shows %d, want %d", c.source, c.bucket, got, c.want)
		}
	}
	if due := attr("#timeline-info", "data-due"); due != "12" {
		t.Errorf("the timeline says %s due in the hour, want 12", due)
	}
	shot("overview")

	// A storm: 2,000 keys due in a second; the live chart must show their
	// deletion. The manual clock moves one second at a time until it does.
	pipe := rc.Pipeline()
	for i := range 2000 {
		pipe.Set(ctx, fmt.Sprintf("storm:%d", i), "v", 0)
		pipe.PExpireAt(ctx, fmt.Sprintf("storm:%d", i), now.Add(time.Second))
	}
	if _, err := pipe.Exec(ctx); err != nil {
		t.Fatal(err)
	}
	eventually(t, time.Minute, "the live chart to show the storm's deletions", func() bool {
		s.Advance(t, time.Second)
		f, _ := strconv.ParseFloat(attr("#live-now", "data-max-rate"), 64)
		return f > 0
	})
	shot("live")

	// A Redis database's page stacks its keys by prefix.
	do(chromedp.Navigate(base+"/#/source/redis_keys:db0"), chromedp.WaitReady(chromedp.CSS("#timeline canvas")))
	eventually(t, time.Minute, "the prefix legend", func() bool {
		text, err := chromedp.Run(browser, chromedp.Text(chromedp.CSS("#timeline")))
		return err == nil && strings.Contains(text, "session:*")
	})
	shot("redis-db")

	// The policy's page: preview offset 0s (all 6 documents at once), then
	// apply it and follow the operation.
	do(chromedp.Navigate(base+"/#/source/policy:events.at"), chromedp.WaitVisible(chromedp.CSS("#dry-run")),
		chromedp.SetValue(chromedp.CSS("#dr-offset"), "0s"), chromedp.SetValue(chromedp.CSS("#dr-token"), token),
		chromedp.Click(chromedp.CSS("#dr-preview-btn")), chromedp.WaitVisible(chromedp.CSS("#dr-preview")))
	if would := attr("#dr-preview dd[data-would-delete]", "data-would-delete"); would != "6" {
		t.Errorf("the dry run would delete %s documents, want 6", would)
	}
	shot("dry-run")
	do(chromedp.Click(chromedp.CSS("#dr-apply")), chromedp.WaitVisible(chromedp.CSS("#op-progress")))
	eventually(t, time.Minute, "the operation to end on the page", func() bool { return attr("#op-state", "data-done") == "true" })
	state, err := chromedp.Run(browser, chromedp.Text(chromedp.CSS("#op-state")))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("operation: %s", state)
	shot("operation")

	// The TTL index's page, by keyboard alone: Tab to the form, type
	// expireAfterSeconds 600 (all 4 documents due at once) and the token,
	// Enter on Preview, Tab to Apply and Enter; the collMod is done at once
	// and the source's rule changes.
	do(chromedp.Navigate(base+"/#/source/ttl_index:app.sessions.at_1"), chromedp.WaitVisible(chromedp.CSS("#dry-run")))
	// The new page takes the focus once drawn, as a page load would.
	eventually(t, time.Minute, "the page to take the focus", func() bool {
		id, err := chromedp.Run(browser, chromedp.Evaluate[string](`document.activeElement.id`))
		return err == nil && id == "main"
	})
	tabTo := func(id string) {
		t.Helper()
		for range 80 {
			do(chromedp.KeyEvent(kb.Tab))
			focus, err := chromedp.Run(browser, chromedp.Evaluate[[]string](`(() => { const a = document.activeElement;
				return [a.id, a.tagName, getComputedStyle(a).outlineStyle, a.disabled ? "disabled" : ""]; })()`))
			if err != nil {
				t.Fatal(err)
			}
			if focus[3] == "disabled" {
				t.Errorf("the disabled %s %s has the focus", focus[1], focus[0])
			}
			if focus[1] != "BODY" && focus[2] == "none" {
				t.Errorf("the focused %s %s shows no outline", focus[1], focus[0])
			}
			if focus[0] == id {
				return
			}
		}
		t.Fatalf("tabbing never reached #%s", id)
	}
	typeOver := func(text string) {
		t.Helper()
		if _, err := chromedp.Run(browser, chromedp.Evaluate[bool](`(document.activeElement.select(), true)`)); err != nil {
			t.Fatal(err)
		}
		do(chromedp.KeyEvent(text))
	}
	tabTo("dr-offset")
	typeOver("600")
	tabTo("dr-token")
	typeOver(token)
	tabTo("dr-preview-btn")
	do(chromedp.KeyEvent(kb.Enter), chromedp.WaitVisible(chromedp.CSS("#dr-preview")))
	if would := attr("#dr-preview dd[data-would-delete]", "data-would-delete"); would != "4" {
		t.Errorf("the TTL index's dry run would delete %s documents, want 4", would)
	}
	shot("ttl-index-dry-run")
	tabTo("dr-apply")
	do(chromedp.KeyEvent(kb.Enter), chromedp.WaitVisible(chromedp.CSS("#op-progress")))
	eventually(t, time.Minute, "the collMod to show as done", func() bool { return attr("#op-state", "data-done") == "true" })
	eventually(t, time.Minute, "the source's rule to change", func() bool {
		text, err := chromedp.Run(browser, chromedp.Text(chromedp.CSS("#source-row")))
		return err == nil && strings.Contains(text, "app.sessions: at + 600s") && strings.Contains(text, "expireAfterSeconds 600")
	})
	if v := attr("#op-progress", "value"); v != "1" {
		t.Errorf("the collMod's progress bar is at %s, want full", v)
	}
	shot("ttl-index-applied")
	// The 4 documents are due now, and the sweeper deletes them.
	eventually(t, time.Minute, "the sweeper to delete the 4 documents the change made due", func() bool {
		s.Advance(t, time.Second)
		var src struct {
			Sources []struct {
				Name               string
				ExpireAfterSeconds int64
				Deleted            int64
			}
		}
		consoleGet(t, s, "/v1/console/sources", &src)
		for _, x := range src.Sources {
			if x.Name == "ttl_index:app.sessions.at_1" {
				if x.ExpireAfterSeconds != 600 {
					t.Fatalf("after the change the TTL index is %+v, want expireAfterSeconds 600", x)
				}
				return x.Deleted == 4
			}
		}
		return false
	})

	do(chromedp.Navigate(base+"/#/storage"), chromedp.WaitVisible(chromedp.CSS("#keyspaces tbody tr")))
	shot("storage")
	// A phone-sized window: every page fits its width, the page itself
	// never scrolls sideways (wide tables scroll in their own box).
	do(chromedp.EmulateViewport(390, 844))
	for _, p := range []struct{ name, hash, ready string }{
		{"phone", "#/", "#sources tbody tr"},
		{"phone-source", "#/source/policy:events.at", "#dry-run"},
		{"phone-storage", "#/storage", "#keyspaces tbody tr"},
	} {
		do(chromedp.Navigate(base+"/"+p.hash), chromedp.WaitVisible(chromedp.CSS(p.ready)), chromedp.WaitReady(chromedp.CSS("main canvas, #keyspaces")))
		widths, err := chromedp.Run(browser, chromedp.Evaluate[[]int](`[document.documentElement.scrollWidth, window.innerWidth]`))
		if err != nil {
			t.Fatal(err)
		}
		if widths[0] > widths[1] {
			t.Errorf("%s at 390 px: the page is %d px wide, wider than the %d px window", p.hash, widths[0], widths[1])
		}
		shot(p.name)
	}
}

// consoleBrowser is a headless Chromium tab and the test's ways to drive
// it.
type consoleBrowser struct {
	ctx  context.Context
	do   func(steps ...chromedp.Action[chromedp.Void])
	attr func(sel, name string) string
	shot func(name string) string
}

// newConsoleBrowser starts Chromium with a 1280x1100 window; shot writes
// a full-page screenshot to artifacts and returns its path.
func newConsoleBrowser(t *testing.T, chrome, artifacts string) *consoleBrowser {
	alloc, cancelAlloc := chromedp.NewExecAllocator(t.Context(), append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chrome), chromedp.NoSandbox, chromedp.WindowSize(1280, 1100), chromedp.Flag("headless", "new"))...)
	t.Cleanup(cancelAlloc)
	browser, cancelBrowser := chromedp.NewContext(alloc)
	t.Cleanup(cancelBrowser)
	browser, cancelTimeout := context.WithTimeout(browser, 3*time.Minute)
	t.Cleanup(cancelTimeout)
	b := &consoleBrowser{ctx: browser}
	b.do = func(steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(browser, steps...); err != nil {
			t.Fatal(err)
		}
	}
	b.attr = func(sel, name string) string {
		r, err := chromedp.Run(browser, chromedp.AttributeValue(chromedp.CSS(sel), name))
		if err != nil {
			return ""
		}
		return r.Value
	}
	b.shot = func(name string) string {
		t.Helper()
		png, err := chromedp.Run(browser, chromedp.FullScreenshot(100))
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(artifacts, name+".png")
		if err := os.WriteFile(path, png, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("screenshot %s (%d KB)", path, len(png)/1024)
		return path
	}
	return b
}

// patchPolicy sends PATCH /v1/ttl/policies/events with body.
func patchPolicy(t *testing.T, s *harness.Server, token, body string) {
	t.Helper()
	req, err := http.NewRequest("PATCH", "http://"+s.HTTPAddr+"/v1/ttl/policies/events", bytes.NewBufferString(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("PATCH policy: %s: %s", resp.Status, b)
	}
}

// The README's screenshot: the overview of a server on the real clock,
// loaded with Redis keys of several prefixes, a TTL index and a policy
// due over the coming hour, taken while a storm of 100,000 keys is being
// deleted under a rate limit, so that the live charts hold the storm. With
// MAYFLY_README_SCREENSHOT=docs/console.png (relative to the repository)
// it is also written there.
func TestConsoleReadmeScreenshot(t *testing.T) {
	chrome := chromiumPath()
	if chrome == "" {
		t.Skip("no chromium binary on PATH (apt-get install -y chromium); the web console's browser test needs one")
	}
	artifacts := os.Getenv("MAYFLY_ARTIFACTS")
	if artifacts == "" {
		artifacts = t.TempDir()
	}
	if err := os.MkdirAll(artifacts, 0o755); err != nil {
		t.Fatal(err)
	}
	const rate = 10000
	s := harness.Start(t, "--set-parameter", "ttlMonitorSleepSecs=1", "--set-parameter", fmt.Sprintf("ttlMaxDeletesPerSecond=%d", rate))
	ctx := t.Context()
	now := time.Now()

	rc := redis.NewClient(&redis.Options{Addr: s.RespAddr})
	defer rc.Close()
	pipe := rc.Pipeline()
	// Keys due over the hour, more of them soon: sessions, carts, a cache.
	for i := range 6000 {
		prefix := []string{"session", "cart", "cache", "session", "rate"}[i%5]
		at := now.Add(time.Minute + time.Duration(i*i/6000)*time.Second/2)
		pipe.Set(ctx, fmt.Sprintf("%s:%d", prefix, i), "v", 0)
		pipe.PExpireAt(ctx, fmt.Sprintf("%s:%d", prefix, i), at)
	}
	if _, err := pipe.Exec(ctx); err != nil {
		t.Fatal(err)
	}
	cl, err := mongo.Connect(options.Client().ApplyURI("mongodb://" + s.MongoAddr + "/?directConnection=true").SetTimeout(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Disconnect(context.Background())
	// A TTL index of 30 minutes over sessions created in the last half
	// hour, and a policy of 2 h over events of the last 2 hours.
	sessions := cl.Database("app").Collection("sessions")
	if _, err := sessions.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "at", Value: 1}}, Options: options.Index().SetExpireAfterSeconds(1800)}); err != nil {
		t.Fatal(err)
	}
	var docs []any
	for i := range 3000 {
		docs = append(docs, bson.D{{Key: "_id", Value: i}, {Key: "at", Value: now.Add(-time.Duration(i) * 600 * time.Millisecond)}})
	}
	if _, err := sessions.InsertMany(ctx, docs); err != nil {
		t.Fatal(err)
	}
	docs = docs[:0]
	for i := range 2000 {
		docs = append(docs, bson.D{{Key: "_id", Value: i}, {Key: "at", Value: now.Add(-2*time.Hour + 5*time.Minute + time.Duration(i)*1500*time.Millisecond)}})
	}
	if _, err := cl.Database("app").Collection("events").InsertMany(ctx, docs); err != nil {
		t.Fatal(err)
	}
	patchPolicy(t, s, "", `{"field":"at","enabled":true,"expirationOffset":"2h"}`)

	b := newConsoleBrowser(t, chrome, artifacts)
	b.do(chromedp.Navigate("http://"+s.HTTPAddr+"/"), chromedp.WaitVisible(chromedp.CSS("#sources tbody tr")), chromedp.WaitReady(chromedp.CSS("#live-rate canvas")))
	// The storm: due 10 s from now (after it is loaded), deleted at the rate limit over about 10 s.
	stormAt := time.Now().Add(10 * time.Second)
	for start := 0; start < 100_000; start += 10_000 {
		pipe := rc.Pipeline()
		for i := start; i < start+10_000; i++ {
			pipe.Set(ctx, fmt.Sprintf("storm:%d", i), "v", 0)
			pipe.PExpireAt(ctx, fmt.Sprintf("storm:%d", i), stormAt)
		}
		if _, err := pipe.Exec(ctx); err != nil {
			t.Fatal(err)
		}
	}
	// Wait until the page has drawn a few seconds of the storm's deletion
	// and its backlog.
	eventually(t, time.Minute, "six seconds of the storm's deletion", func() bool {
		var live struct {
			Samples []struct {
				DeletedPerSecond float64
				Backlog          int64
			}
		}
		consoleGet(t, s, "/v1/console/live", &live)
		n, backlog := 0, int64(0)
		for _, p := range live.Samples {
			if p.DeletedPerSecond > rate/2 {
				n++
			}
			backlog = max(backlog, p.Backlog)
		}
		// The live backlog follows the storm while one long pass deletes it.
		return n >= 6 && backlog > 50_000
	})
	eventually(t, time.Minute, "the page to draw them, and the backlog behind now", func() bool {
		f, _ := strconv.ParseFloat(b.attr("#live-now", "data-max-rate"), 64)
		backlog, _ := strconv.ParseInt(b.attr("#timeline-info", "data-backlog"), 10, 64)
		return f > rate/2 && backlog > 0
	})
	path := b.shot("readme")
	if dst := os.Getenv("MAYFLY_README_SCREENSHOT"); dst != "" {
		png, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		root, err := harness.Root()
		if err != nil {
			t.Fatal(err)
		}
		if !filepath.IsAbs(dst) {
			dst = filepath.Join(root, dst)
		}
		if err := os.WriteFile(dst, png, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("README screenshot written to %s", dst)
	}
}

// The console's load time with 1,000,000 items due: Redis keys of ten
// prefixes due over the next day, and the overview opened in Chromium;
// the figure logged is the page's own, from the navigation's start to the
// first page drawn (timeline, live charts and sources). Loading the keys
// takes a while, so it runs only with MAYFLY_CONSOLE_MILLION=1.
func TestConsoleLoadsWithMillionDue(t *testing.T) {
	if os.Getenv("MAYFLY_CONSOLE_MILLION") == "" {
		t.Skip("set MAYFLY_CONSOLE_MILLION=1 to load 1,000,000 keys and time the console's overview")
	}
	chrome := chromiumPath()
	if chrome == "" {
		t.Skip("no chromium binary on PATH (apt-get install -y chromium); the web console's browser test needs one")
	}
	s := harness.Start(t, "--manual-clock")
	ctx := t.Context()
	rc := redis.NewClient(&redis.Options{Addr: s.RespAddr})
	defer rc.Close()
	prefixes := []string{"user", "cart", "session", "token", "cache", "rate", "lock", "job", "feed", "otp"}
	const n, chunk = 1_000_000, 10_000
	for start := 0; start < n; start += chunk {
		pipe := rc.Pipeline()
		for i := start; i < start+chunk; i++ {
			pipe.Set(ctx, fmt.Sprintf("%s:%d", prefixes[i%len(prefixes)], i), "v", time.Minute+time.Duration(i)*(24*time.Hour/n))
		}
		if _, err := pipe.Exec(ctx); err != nil {
			t.Fatal(err)
		}
	}
	var src struct {
		Sources []struct {
			Name  string
			Items int64
		}
	}
	consoleGet(t, s, "/v1/console/sources", &src)
	for _, x := range src.Sources {
		if x.Name == "redis_keys:db0" && x.Items != n {
			t.Fatalf("redis_keys:db0 holds %d items, want %d", x.Items, n)
		}
	}
	b := newConsoleBrowser(t, chrome, t.TempDir())
	b.do(chromedp.Navigate("http://"+s.HTTPAddr+"/"), chromedp.WaitVisible(chromedp.CSS("#sources tbody tr")),
		chromedp.WaitReady(chromedp.CSS("#timeline canvas")), chromedp.WaitReady(chromedp.CSS("main[data-rendered-ms]")))
	t.Logf("overview (next hour) drawn %s ms after the navigation started, with %d items due", b.attr("main", "data-rendered-ms"), n)
	// The day's timeline counts every item.
	start := time.Now()
	b.do(chromedp.SetValue(chromedp.CSS("#span"), "day"))
	if _, err := chromedp.Run(b.ctx, chromedp.Evaluate[bool](`(document.getElementById("span").dispatchEvent(new Event("change")), true)`)); err != nil {
		t.Fatal(err)
	}
	eventually(t, time.Minute, "the day's timeline", func() bool {
		due := b.attr("#timeline-info", "data-due")
		return due == strconv.Itoa(n)
	})
	t.Logf("the day's timeline (all %d items) drawn within %v of the change (polled every 100 ms)", n, time.Since(start))
}
