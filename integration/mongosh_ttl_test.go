package integration_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/mayfly/mayfly/integration/harness"
)

// The TTL examples of a Turkish and a Chinese article on MongoDB TTL
// indexes run verbatim in mongosh against the real binary on a manual clock; between
// steps the test advances the server's clock and checks, through the Go
// driver, what was deleted.
//
// The examples live in testdata/seed000_*.js and testdata/seed001_ttl.js,
// cut from the articles at the end of each code block;
// TestTTLSeedExamplesAreVerbatim checks them against the articles' text
// when a copy of it is found beside the module.
// They run with mongosh --quiet --file. mongosh's script mode treats
// `use uygulama` as a shell command that takes the rest of its input as
// arguments, so a leading `use` line is passed as its own --eval, which
// runs first in the same context: the same commands, in order.

// ttlMongosh runs mongosh on db with args and returns its output and
// whether it exited 0.
func ttlMongosh(t *testing.T, s *harness.Server, db string, args ...string) (string, bool) {
	t.Helper()
	bin := harness.Tool(t, "mongosh")
	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, append([]string{"mongodb://" + s.MongoAddr + "/" + db, "--quiet"}, args...)...)
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "NO_COLOR=1")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("mongosh %v timed out:\n%s", args, out.String())
	}
	return out.String(), err == nil
}

// ttlSeedRun runs testdata examples, in order, in one mongosh on db with
// --file, followed by extra (the test's own statements; "" for none). A
// `use` line opening the first example is passed as --eval, which mongosh
// runs before the files in the same context.
func ttlSeedRun(t *testing.T, s *harness.Server, db string, examples []string, extra string) (string, bool) {
	t.Helper()
	dir := t.TempDir()
	var evals, files []string
	for i, name := range examples {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		body := string(b)
		for strings.HasPrefix(body, "use ") {
			if i > 0 {
				t.Fatalf("%s: a use line can only open the first example of a run", name)
			}
			line, rest, _ := strings.Cut(body, "\n")
			evals = append(evals, "--eval", line)
			body = rest
		}
		files = append(files, filepath.Join(dir, name))
		if err := os.WriteFile(files[i], []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if extra != "" {
		files = append(files, filepath.Join(dir, "test.js"))
		if err := os.WriteFile(files[len(files)-1], []byte(extra), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	args := evals
	for _, f := range files {
		args = append(args, "--file", f)
	}
	return ttlMongosh(t, s, db, args...)
}

// mustSeedRun is ttlSeedRun that fails the test if mongosh fails.
func mustSeedRun(t *testing.T, s *harness.Server, db string, examples []string, extra string) string {
	t.Helper()
	out, ok := ttlSeedRun(t, s, db, examples, extra)
	if !ok || strings.Contains(out, "MongoServerError") {
		t.Fatalf("mongosh %v failed:\n%s", examples, out)
	}
	return out
}

// ttlEval runs a script with --eval on db (the test's own statements, not
// the seed's) and returns what it printed.
func ttlEval(t *testing.T, s *harness.Server, db, script string) string {
	t.Helper()
	out, ok := ttlMongosh(t, s, db, "--eval", script)
	if !ok {
		t.Fatalf("mongosh --eval %q failed:\n%s", script, out)
	}
	return out
}

// docTime reads a Date field of the one document of c that matches filter.
func docTime(t *testing.T, c *mongo.Collection, filter bson.D, field string) time.Time {
	t.Helper()
	raw, err := c.FindOne(t.Context(), filter).Raw()
	if err != nil {
		t.Fatalf("%s: %v", c.Name(), err)
	}
	return raw.Lookup(field).Time().UTC()
}

// countOf counts the visible documents of c matching filter.
func countOf(t *testing.T, c *mongo.Collection, filter bson.D) int64 {
	t.Helper()
	n, err := c.CountDocuments(t.Context(), filter)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// sweepTo advances the server's clock to at (if it is not there yet) and
// waits for two passes.
func (e *ttlEnv) sweepTo(at time.Time) {
	e.t.Helper()
	e.sweep(max(at.Sub(e.now()), 0))
}

// ttlItem is a document the seed's examples make expire, with its due
// time on the server's clock.
type ttlItem struct {
	name    string
	due     time.Time // zero: never
	present func() bool
}

// Ensure that every TTL example of the Turkish article runs verbatim in
// mongosh and does what the article says: each document goes exactly at its due time on
// the server's clock, not a second before.
func TestMongoshSeed000TTL(t *testing.T) {
	e := startTTL(t)
	app := e.cl.Database("uygulama")
	t0 := e.now()
	ms := strconv.FormatInt(t0.UnixMilli(), 10)
	// The seed's examples in the seed's order, then the test's own
	// statements: the mistake the validator is there for (a date written
	// as a string), an event, and a click and a view for the partial index
	// (dated by the server's clock, which mongosh's new Date() may not be).
	out := mustSeedRun(t, e.s, "test", []string{"seed000_oturumlar.js", "seed000_kuponlar.js", "seed000_olaylar.js", "seed000_olaylar2.js"}, `
try { db.olaylar.insertOne({ zaman: "2026-11-07" }) } catch (e) { print("refused", e.code, e.message) }
db.olaylar.insertOne({ _id: "olay", zaman: new Date(`+ms+`) })
db.olaylar2.insertMany([
	{ _id: "t", tur: "tiklama", zaman: new Date(`+ms+`) },
	{ _id: "g", tur: "goruntuleme", zaman: new Date(`+ms+`) }])
`)
	if !strings.Contains(out, "refused 121 Document failed validation") {
		t.Fatalf("a string date was not refused with 121:\n%s", out)
	}
	for coll, want := range map[string]string{
		"oturumlar": `{"v": {"$numberInt":"2"},"key": {"olusturma": {"$numberInt":"1"}},"name": "olusturma_1","expireAfterSeconds": {"$numberInt":"1800"}}`,
		"kuponlar":  `{"v": {"$numberInt":"2"},"key": {"sonKullanma": {"$numberInt":"1"}},"name": "sonKullanma_1","expireAfterSeconds": {"$numberInt":"0"}}`,
		"olaylar":   `{"v": {"$numberInt":"2"},"key": {"zaman": {"$numberInt":"1"}},"name": "zaman_1","expireAfterSeconds": {"$numberInt":"604800"}}`,
		"olaylar2":  `{"v": {"$numberInt":"2"},"key": {"zaman": {"$numberInt":"1"}},"name": "zaman_1","expireAfterSeconds": {"$numberInt":"86400"},"partialFilterExpression": {"tur": "tiklama"}}`,
	} {
		cur, err := app.Collection(coll).Indexes().List(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		var specs []bson.Raw
		if err := cur.All(t.Context(), &specs); err != nil || len(specs) != 2 || specs[1].String() != want {
			t.Fatalf("%s indexes %v %v", coll, specs, err)
		}
	}

	has := func(coll string, filter bson.D) func() bool {
		return func() bool { return countOf(t, app.Collection(coll), filter) == 1 }
	}
	elif := bson.D{{Key: "kullanici", Value: "elif"}}
	items := []ttlItem{
		{"the session, 1800 s after olusturma", docTime(t, app.Collection("oturumlar"), elif, "olusturma").Add(1800 * time.Second), has("oturumlar", elif)},
		{"the coupon, at sonKullanma", time.Date(2026, 11, 30, 21, 0, 0, 0, time.UTC), has("kuponlar", bson.D{{Key: "kod", Value: "KASIM20"}})},
		{"the event, a week after zaman", t0.Add(604800 * time.Second), has("olaylar", bson.D{{Key: "_id", Value: "olay"}})},
		{"the click, a day after zaman", t0.Add(86400 * time.Second), has("olaylar2", bson.D{{Key: "_id", Value: "t"}})},
		{"the view, never", time.Time{}, has("olaylar2", bson.D{{Key: "_id", Value: "g"}})},
	}
	slices.SortFunc(items, func(a, b ttlItem) int {
		switch {
		case a.due.IsZero():
			return 1
		case b.due.IsZero():
			return -1
		}
		return a.due.Compare(b.due)
	})
	check := func(when string) {
		t.Helper()
		now := e.now()
		for _, it := range items {
			want := it.due.IsZero() || now.Before(it.due)
			if got := it.present(); got != want {
				t.Fatalf("%s (server time %s): %s present = %v, want %v", when, now.Format(time.RFC3339Nano), it.name, got, want)
			}
		}
	}
	check("at the start") // the coupon is gone already if the machine's clock is past its date
	for _, it := range items {
		if it.due.IsZero() {
			e.sweep(365 * 24 * time.Hour)
			check("a year on")
			continue
		}
		if e.now().Before(it.due.Add(-time.Second)) {
			e.sweepTo(it.due.Add(-time.Second))
			check("a second before " + it.name)
		}
		e.sweepTo(it.due)
		check("at " + it.name)
	}

	// The metrics printout, then the time-series example: the collection
	// and its partial TTL index on the timeField for one sensor.
	m := e.ttl() // the clock stands still: no pass runs until it moves
	out, ok := ttlSeedRun(t, e.s, "uygulama", []string{"seed000_metrics.js", "seed000_sicaklik24s.js"}, "")
	for key, field := range map[string]string{"silinen": "deletedDocuments", "gecis": "passes", "altGecis": "subPasses"} {
		got := regexp.MustCompile(key + `: Long\('(\d+)'\)`).FindStringSubmatch(out)
		if got == nil {
			t.Fatalf("the printout lacks %s as a Long:\n%s", key, out)
		}
		if want := strconv.FormatInt(m.Lookup(field).Int64(), 10); got[1] != want {
			t.Fatalf("%s = %s, serverStatus says %s", key, got[1], want)
		}
	}
	if d := m.Lookup("deletedDocuments").Int64(); d != 4 {
		t.Fatalf("deletedDocuments %d, want 4 (session, coupon, click, event)", d)
	}
	if !ok {
		t.Fatalf("the time-series example failed:\n%s", out)
	}
	names, err := app.ListCollectionNames(t.Context(), bson.D{{Key: "name", Value: "sicaklik24s"}})
	if err != nil || len(names) != 1 {
		t.Fatalf("collections %v %v", names, err)
	}
	ixs, err := app.Collection("sicaklik24s").Indexes().ListSpecifications(t.Context())
	if err != nil || len(ixs) != 1 || ixs[0].ExpireAfterSeconds == nil || *ixs[0].ExpireAfterSeconds != 3600 {
		t.Fatalf("indexes %v %v", ixs, err)
	}

	t.Run("collMod: 3600 s instead of 1800 s, for old sessions too", func(t *testing.T) {
		// On a server of its own, whose clock mongosh's new Date() does
		// not lag.
		e := startTTL(t)
		app := e.cl.Database("uygulama")
		mustSeedRun(t, e.s, "test", []string{"seed000_oturumlar.js"}, "")
		c := app.Collection("oturumlar")
		created := docTime(t, c, elif, "olusturma")
		b, err := os.ReadFile(filepath.Join("testdata", "seed000_collmod.js"))
		if err != nil {
			t.Fatal(err)
		}
		// --eval prints the command's reply.
		out := ttlEval(t, e.s, "uygulama", string(b))
		if !strings.Contains(out, "expireAfterSeconds_old: Long('1800')") || !strings.Contains(out, "expireAfterSeconds_new: Long('3600')") ||
			!strings.Contains(out, "ok: 1") {
			t.Fatalf("collMod reply:\n%s", out)
		}
		e.sweepTo(created.Add(1800*time.Second + time.Second))
		if countOf(t, c, elif) != 1 {
			t.Fatal("the session went at the old 1800 s")
		}
		e.sweepTo(created.Add(3600*time.Second - time.Second))
		if countOf(t, c, elif) != 1 {
			t.Fatal("the session went before 3600 s")
		}
		e.sweep(time.Second)
		if countOf(t, c, elif) != 0 {
			t.Fatal("the session was not deleted at 3600 s")
		}
	})
}

// Ensure that the Chinese article's TTL indexes run verbatim in mongosh: expiresAt +
// 0 and createdAt + N, with 7 * 24 * 3600 evaluated by the shell, and that
// a createdAt stored as a string never expires while an ISODate does.
func TestMongoshSeed001TTL(t *testing.T) {
	e := startTTL(t)
	now := strconv.FormatInt(e.now().UnixMilli(), 10)
	// The seed's indexes, then its two createdAt values (recommended and
	// risky) and two documents dated by the server's clock.
	mustSeedRun(t, e.s, "test", []string{"seed001_ttl.js"}, `
db.login_codes.insertMany([
	{ _id: "date", createdAt: ISODate("2026-07-29T10:00:00Z") },
	{ _id: "string", createdAt: "2026-07-29 10:00:00" },
	{ _id: "fresh", createdAt: new Date(`+now+`) }])
db.sessions.insertOne({ _id: "s", expiresAt: new Date(`+now+` + 15 * 60 * 1000) })
`)
	db := e.cl.Database("test")
	for coll, want := range map[string]int32{"sessions": 0, "login_codes": 300, "events": 604800} {
		specs, err := db.Collection(coll).Indexes().ListSpecifications(t.Context())
		if err != nil || len(specs) != 2 || specs[1].ExpireAfterSeconds == nil || *specs[1].ExpireAfterSeconds != want {
			t.Fatalf("%s indexes %+v %v", coll, specs, err)
		}
	}
	codes := db.Collection("login_codes")
	e.wantIDs(codes, "fresh", "string") // the ISODate is months past its 300 s
	e.sweep(300*time.Second - time.Second)
	e.wantIDs(codes, "fresh", "string")
	e.sweep(time.Second)
	e.wantIDs(codes, "string")
	e.wantIDs(db.Collection("sessions"), "s")
	e.sweep(15*time.Minute - 300*time.Second)
	e.wantIDs(db.Collection("sessions"))
	if got := e.counter("deletedDocuments"); got != 3 {
		t.Fatalf("deletedDocuments %d, want 3", got)
	}
}

// Ensure that the testdata examples are the seeds' text: every chunk (the
// files cut after each line that closes a call with ")") occurs in its
// seed verbatim.
func TestTTLSeedExamplesAreVerbatim(t *testing.T) {
	root, err := harness.Root()
	if err != nil {
		t.Fatal(err)
	}
	seeds := filepath.Join(root, "..", "shared", "seeds")
	files := map[string][]string{
		"000_b8ceddef35d3fba2.txt": {"seed000_oturumlar.js", "seed000_kuponlar.js", "seed000_olaylar.js", "seed000_metrics.js",
			"seed000_collmod.js", "seed000_olaylar2.js", "seed000_sicaklik24s.js"},
		"001_6ec4a1707cefed82.txt": {"seed001_ttl.js"},
	}
	for seed, examples := range files {
		text, err := os.ReadFile(filepath.Join(seeds, seed))
		if os.IsNotExist(err) {
			t.Skipf("the seeds are not beside the module (%s)", seeds)
		}
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range examples {
			b, err := os.ReadFile(filepath.Join("testdata", name))
			if err != nil {
				t.Fatal(err)
			}
			var chunk []string
			for _, line := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
				chunk = append(chunk, line)
				if strings.TrimSpace(line) == ")" || strings.HasSuffix(line, "} )") {
					if c := strings.Join(chunk, "\n"); !strings.Contains(string(text), c) {
						t.Errorf("%s: not verbatim in %s:\n%s", name, seed, c)
					}
					chunk = nil
				}
			}
			if c := strings.Join(chunk, "\n"); len(chunk) > 0 && !strings.Contains(string(text), c) {
				t.Errorf("%s: not verbatim in %s:\n%s", name, seed, c)
			}
		}
	}
}
