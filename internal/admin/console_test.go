package admin_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/admin"
	"github.com/mayfly/mayfly/internal/docdb"
	"github.com/mayfly/mayfly/internal/docdb/policy"
	"github.com/mayfly/mayfly/internal/expiry"
	"github.com/mayfly/mayfly/internal/kv"
	"github.com/mayfly/mayfly/internal/storage"
)

// fakeClock is a clock that moves only when told.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) Now() time.Time      { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *fakeClock) Add(d time.Duration) { c.mu.Lock(); c.t = c.t.Add(d); c.mu.Unlock() }

// consoleEnv is an admin server with the console over real data: Redis
// keys, a TTL index and a TTL policy, all on one expiry engine and a fake
// clock.
type consoleEnv struct {
	clock   *fakeClock
	engine  *expiry.Engine
	kv      *kv.Store
	db      *docdb.Engine
	console *admin.Console
	url     string
}

func newConsoleEnv(t testing.TB) *consoleEnv {
	t.Helper()
	return newConsoleEnvWithTokens(t, nil)
}

// newConsoleEnvWithTokens is newConsoleEnv with its changes guarded by
// tokens.
func newConsoleEnvWithTokens(t testing.TB, tokens *admin.TokenFile) *consoleEnv {
	t.Helper()
	clock := &fakeClock{t: time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)}
	log := slog.New(slog.DiscardHandler)
	st, err := storage.Open(storage.Options{Dir: "mem", InMemory: true, Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	engine, err := expiry.New(expiry.Config{Now: clock.Now, Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	store, err := kv.Open(context.Background(), kv.Options{Store: st, Now: clock.Now, Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	for _, src := range store.Sources()[:2] {
		if err := engine.Register(src); err != nil {
			t.Fatal(err)
		}
	}
	db, err := docdb.Open(docdb.Options{Store: st, Now: clock.Now, Expiry: engine, Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		db.Close()
		engine.Close()
		st.Close()
	})
	s := admin.NewServer(admin.Options{Logger: log})
	if err := admin.MountPolicies(s, admin.PolicyOptions{Store: db, Stats: engine, Tokens: tokens, Logger: log}); err != nil {
		t.Fatal(err)
	}
	c, err := admin.MountConsole(s, admin.ConsoleOptions{
		Engine: engine, Policies: db, TTLIndexes: db, TTLIndexEditor: db, KeyPrefixes: store, Now: clock.Now, Logger: log, Tokens: tokens,
		Storage: func() (admin.StorageReport, error) {
			m := st.Metrics()
			u, err := st.KeyspaceUsage()
			rep := admin.StorageReport{DiskBytes: m.DiskSpaceUsage, PurgeAfterSeconds: m.Purge.After.Seconds()}
			for _, k := range u {
				rep.Keyspaces = append(rep.Keyspaces, admin.KeyspaceBytes{Name: k.Name, Bytes: k.Bytes})
			}
			return rep, err
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go s.Serve(ln)
	t.Cleanup(func() { s.Shutdown(context.Background()) })
	return &consoleEnv{clock: clock, engine: engine, kv: store, db: db, console: c, url: "http://" + ln.Addr().String()}
}

// setKeys writes Redis keys in db with expiries at the given offsets from
// the clock's now, one key per offset.
func (e *consoleEnv) setKeys(t testing.TB, db int, prefix string, offsets ...time.Duration) {
	t.Helper()
	tx := e.kv.Begin()
	if err := tx.Use(db); err != nil {
		t.Fatal(err)
	}
	now := e.clock.Now()
	for i, off := range offsets {
		if _, err := tx.Set(fmt.Appendf(nil, "%s:%d", prefix, i), []byte("v"), kv.SetOptions{ExpireAt: now.Add(off).UnixMilli()}); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
}

// insertDates inserts one document per offset into db.coll with field
// "at" set to now+offset.
func (e *consoleEnv) insertDates(t testing.TB, coll string, offsets ...time.Duration) {
	t.Helper()
	now := e.clock.Now()
	var docs []bson.Raw
	for i, off := range offsets {
		raw, err := bson.Marshal(bson.D{{Key: "_id", Value: int32(i)}, {Key: "at", Value: bson.NewDateTimeFromTime(now.Add(off))}})
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, raw)
	}
	if _, err := e.db.Insert(context.Background(), "app", coll, docdb.InsertRequest{Documents: docs, Ordered: true}); err != nil {
		t.Fatal(err)
	}
}

func getJSON[T any](t testing.TB, url string) T {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %s", url, resp.StatusCode, body)
	}
	var v T
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatalf("GET %s: %v in %s", url, err, body)
	}
	return v
}

// timelineOf returns the row of source in tl.
func timelineOf(t *testing.T, tl admin.Timeline, source string) admin.SourceTimeline {
	t.Helper()
	for _, s := range tl.Sources {
		if s.Name == source {
			return s
		}
	}
	t.Fatalf("no source %s in the timeline: %+v", source, tl.Sources)
	return admin.SourceTimeline{}
}

// Ensure that the timeline counts every source's items into the exact
// buckets of their due times, with the backlog behind now, for Redis keys,
// a TTL index and a policy.
func TestConsoleTimeline(t *testing.T) {
	e := newConsoleEnv(t)
	ctx := context.Background()
	// Redis db0: two keys overdue (backlog), bucket 0 (now, now+1s], two in
	// bucket 2 (now+2s, now+3s], one expiring at exactly now+3s, which is
	// due 1 ms later as in Redis (a key lives through its expiry
	// millisecond), so in bucket 3, and one past the minute.
	e.setKeys(t, 0, "user", -5*time.Second, -1*time.Millisecond, 500*time.Millisecond, 2500*time.Millisecond, 2600*time.Millisecond, 3*time.Second, 2*time.Minute)
	e.setKeys(t, 1, "cache", 10*time.Second)
	e.setKeys(t, 0, "cart", 1500*time.Millisecond)
	// A TTL index with expireAfterSeconds 60: dates now-90s (overdue) and
	// now-55s (due at now+5s).
	if _, err := e.db.CreateIndexes(ctx, "app", "sessions", []docdb.IndexSpec{{Key: bson.D{{Key: "at", Value: int32(1)}}, Name: "at_1", Options: bson.D{{Key: "expireAfterSeconds", Value: int32(60)}}}}); err != nil {
		t.Fatal(err)
	}
	e.insertDates(t, "sessions", -90*time.Second, -55*time.Second)
	// An array of dates counts once, at its earliest: due at now+2s.
	now := e.clock.Now()
	multi, err := bson.Marshal(bson.D{{Key: "_id", Value: "multi"}, {Key: "at", Value: bson.A{
		bson.NewDateTimeFromTime(now.Add(10 * time.Minute)), bson.NewDateTimeFromTime(now.Add(-58 * time.Second))}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.db.Insert(ctx, "app", "sessions", docdb.InsertRequest{Documents: []bson.Raw{multi}}); err != nil {
		t.Fatal(err)
	}
	// A policy with offset 0 on events.at: due at now+30m and now+90m.
	e.insertDates(t, "events", 30*time.Minute, 90*time.Minute)
	if _, err := e.db.UpdatePolicy(ctx, policy.Update{Group: "events", Field: "at", Enable: true}); err != nil {
		t.Fatal(err)
	}
	waitPolicyActive(t, e.db, "events")

	tl := getJSON[admin.Timeline](t, e.url+"/v1/console/timeline?span=minute")
	if len(tl.Edges) != 61 || tl.BucketSeconds != 1 || !tl.Now.Equal(e.clock.Now()) {
		t.Fatalf("minute timeline shape: %d edges, %v s, now %v", len(tl.Edges), tl.BucketSeconds, tl.Now)
	}
	want := func(row admin.SourceTimeline, backlog int64, buckets map[int]int64) {
		t.Helper()
		if row.Backlog != backlog {
			t.Errorf("%s backlog %d, want %d", row.Name, row.Backlog, backlog)
		}
		for i, n := range row.Counts {
			if n != buckets[i] {
				t.Errorf("%s bucket %d holds %d, want %d (all %v)", row.Name, i, n, buckets[i], row.Counts)
			}
		}
	}
	want(timelineOf(t, tl, "redis_keys:db0"), 2, map[int]int64{0: 1, 1: 1, 2: 2, 3: 1})
	want(timelineOf(t, tl, "redis_keys:db1"), 0, map[int]int64{10: 1})
	want(timelineOf(t, tl, "ttl_index:app.sessions.at_1"), 1, map[int]int64{1: 1, 4: 1})
	want(timelineOf(t, tl, "policy:events.at"), 0, nil)

	hour := getJSON[admin.Timeline](t, e.url+"/v1/console/timeline?span=hour")
	want(timelineOf(t, hour, "redis_keys:db0"), 2, map[int]int64{0: 5, 2: 1})
	want(timelineOf(t, hour, "policy:events.at"), 0, map[int]int64{29: 1})
	want(timelineOf(t, hour, "ttl_index:app.sessions.at_1"), 1, map[int]int64{0: 2}) // the array's later date is not counted
	day := getJSON[admin.Timeline](t, e.url+"/v1/console/timeline?span=day")
	want(timelineOf(t, day, "policy:events.at"), 0, map[int]int64{1: 1, 5: 1})

	// One source alone, for its own page.
	one := getJSON[admin.Timeline](t, e.url+"/v1/console/timeline?span=minute&source=redis_keys:db1")
	if len(one.Sources) != 1 || one.Sources[0].Name != "redis_keys:db1" {
		t.Fatalf("source filter gave %+v", one.Sources)
	}
	// A Redis database's own timeline is split by key prefix, the largest
	// first.
	byPrefix := getJSON[admin.Timeline](t, e.url+"/v1/console/timeline?span=minute&source=redis_keys:db0")
	if len(byPrefix.Prefixes) != 2 || byPrefix.Prefixes[0].Name != "user" || byPrefix.Prefixes[1].Name != "cart" {
		t.Fatalf("prefixes %+v", byPrefix.Prefixes)
	}
	want(byPrefix.Prefixes[0], 2, map[int]int64{0: 1, 2: 2, 3: 1})
	want(byPrefix.Prefixes[1], 0, map[int]int64{1: 1})
	// A preview shift of -60 s (an offset one minute shorter): the policy's
	// document due at now+30m moves to now+29m, so bucket 28 of the hour.
	shifted := getJSON[admin.Timeline](t, e.url+"/v1/console/timeline?span=hour&source=policy:events.at&shiftSeconds=-60")
	want(shifted.Sources[0], 0, map[int]int64{28: 1})
	// Shifting by -31 minutes puts one document behind now.
	shifted = getJSON[admin.Timeline](t, e.url+"/v1/console/timeline?span=hour&source=policy:events.at&shiftSeconds=-1860")
	want(shifted.Sources[0], 1, map[int]int64{58: 1})

	// As the clock moves, the buckets move with it.
	e.clock.Add(3 * time.Second)
	tl = getJSON[admin.Timeline](t, e.url+"/v1/console/timeline?span=minute")
	want(timelineOf(t, tl, "redis_keys:db0"), 6, map[int]int64{0: 1})

	for _, bad := range []string{"span=year", "shiftSeconds=x", "source=nope"} {
		resp, err := http.Get(e.url + "/v1/console/timeline?" + bad)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest && resp.StatusCode != http.StatusNotFound {
			t.Errorf("%s: status %d", bad, resp.StatusCode)
		}
	}
}

// waitPolicyActive waits for the enable operation of group to end; it
// builds the hidden index in the background.
func waitPolicyActive(t *testing.T, db *docdb.Engine, group string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		p, err := db.GetPolicy(context.Background(), group)
		if err != nil {
			t.Fatal(err)
		}
		if p.State == policy.Active {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("policy %s still %s", group, p.State)
		}
		time.Sleep(5 * time.Millisecond) // polling a background build, not waiting for expiry
	}
}

// Ensure that the sources table gives each source's rule, items, due
// count and deletions, and that the storage report is served.
func TestConsoleSources(t *testing.T) {
	e := newConsoleEnv(t)
	ctx := context.Background()
	e.setKeys(t, 0, "k", -time.Second, time.Second, time.Hour)
	if _, err := e.db.CreateIndexes(ctx, "app", "sessions", []docdb.IndexSpec{{Key: bson.D{{Key: "at", Value: int32(1)}}, Name: "at_1",
		Options: bson.D{{Key: "expireAfterSeconds", Value: int32(60)}, {Key: "partialFilterExpression", Value: bson.D{{Key: "at", Value: bson.D{{Key: "$exists", Value: true}}}}}}}}); err != nil {
		t.Fatal(err)
	}
	e.insertDates(t, "sessions", -90*time.Second, -61*time.Second, 0)
	if _, err := e.engine.CountDue(ctx); err != nil {
		t.Fatal(err)
	}
	src := getJSON[admin.Sources](t, e.url+"/v1/console/sources")
	byName := map[string]admin.SourceEntry{}
	for _, s := range src.Sources {
		byName[s.Name] = s
	}
	k := byName["redis_keys:db0"]
	if k.Items != 3 || k.DueNow != 1 {
		t.Errorf("redis_keys:db0: items %d due %d, want 3 and 1", k.Items, k.DueNow)
	}
	ix := byName["ttl_index:app.sessions.at_1"]
	if ix.Items != 3 || ix.DueNow != 2 || ix.Field != "at" || ix.ExpireAfterSeconds == nil || *ix.ExpireAfterSeconds != 60 ||
		!strings.Contains(ix.PartialFilter, "$exists") || ix.Rule != "app.sessions: at + 60s" {
		t.Errorf("ttl index row %+v", ix)
	}

	rep := getJSON[admin.StorageReport](t, e.url+"/v1/console/storage")
	if len(rep.Keyspaces) != len(storage.PrefixNames) {
		t.Errorf("storage report has %d keyspaces, want %d", len(rep.Keyspaces), len(storage.PrefixNames))
	}
}

// Ensure that the live series turns the engine's counters into per-second
// rates and lag quantiles of the deletions of each second, and that since
// returns only newer samples.
func TestConsoleLive(t *testing.T) {
	e := newConsoleEnv(t)
	ctx := context.Background()
	e.console.Sample() // the reference
	var keys []time.Duration
	for range 100 {
		keys = append(keys, -time.Second)
	}
	e.setKeys(t, 0, "storm", keys...)
	e.clock.Add(time.Second)
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- e.engine.Run(runCtx) }()
	defer func() { stop(); <-done }()
	e.engine.Wake(e.clock.Now())
	deadline := time.Now().Add(10 * time.Second)
	for e.engine.Stats().DeletedItems < 100 {
		if time.Now().After(deadline) {
			t.Fatalf("the sweeper deleted %d of 100 keys", e.engine.Stats().DeletedItems)
		}
		time.Sleep(time.Millisecond) // polling the sweeper's goroutine; the clock stands still
	}
	e.console.Sample()
	e.clock.Add(time.Second)
	e.console.Sample()
	live := getJSON[admin.Live](t, e.url+"/v1/console/live")
	if len(live.Samples) != 2 {
		t.Fatalf("%d samples, want 2: %+v", len(live.Samples), live.Samples)
	}
	s := live.Samples[0]
	if s.DeletedPerSecond != 100 || s.LagP50Seconds <= 0 || s.LagP99Seconds < s.LagP50Seconds {
		t.Errorf("storm second: %+v", s)
	}
	if q := live.Samples[1]; q.DeletedPerSecond != 0 || q.LagP99Seconds != 0 {
		t.Errorf("quiet second: %+v", q)
	}
	later := getJSON[admin.Live](t, fmt.Sprintf("%s/v1/console/live?since=%d", e.url, s.T))
	if len(later.Samples) != 1 || later.Samples[0].T != live.Samples[1].T {
		t.Errorf("since %d gave %+v", s.T, later.Samples)
	}
}

// Ensure that the page and its files are served from the embedded bundle.
func TestConsolePage(t *testing.T) {
	e := newConsoleEnv(t)
	for path, want := range map[string]string{"/": "<title>mayfly console</title>", "/console/app.js": "/v1/console/timeline", "/console/app.css": ".chart"} {
		resp, err := http.Get(e.url + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || !strings.Contains(string(body), want) {
			t.Errorf("GET %s: %d, %d bytes without %q", path, resp.StatusCode, len(body), want)
		}
	}
}

// Ensure that with RequireAuth the console's JSON needs one of the tokens,
// as /metrics does then, while the page's files stay open.
func TestConsoleRequireAuth(t *testing.T) {
	path := t.TempDir() + "/tokens"
	const token = "console-unit-token-0123456789"
	if err := os.WriteFile(path, []byte(token+" ttl.policies.list\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tokens, err := admin.OpenTokenFile(path, func(string) {})
	if err != nil {
		t.Fatal(err)
	}
	clock := &fakeClock{t: time.Unix(1e9, 0)}
	engine, err := expiry.New(expiry.Config{Now: clock.Now, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	defer engine.Close()
	s := admin.NewServer(admin.Options{Logger: slog.New(slog.DiscardHandler)})
	if _, err := admin.MountConsole(s, admin.ConsoleOptions{Engine: engine, Tokens: tokens, RequireAuth: true, Now: clock.Now}); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go s.Serve(ln)
	defer s.Shutdown(context.Background())
	status := func(path, bearer string) int {
		req, _ := http.NewRequest("GET", "http://"+ln.Addr().String()+path, nil)
		if bearer != "" {
			req.Header.Set("Authorization", "Bearer "+bearer)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	for path, want := range map[string]int{"/v1/console/timeline": 401, "/v1/console/live": 401, "/": 200, "/console/app.js": 200} {
		if got := status(path, ""); got != want {
			t.Errorf("GET %s without a token: %d, want %d", path, got, want)
		}
	}
	if got := status("/v1/console/timeline", token); got != 200 {
		t.Errorf("GET /v1/console/timeline with a token: %d", got)
	}
}
