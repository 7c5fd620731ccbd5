package integration_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/mayfly/mayfly/integration/harness"
)

// Black-box tests of TTL policies: the mayfly CLI (`mayfly ttls`,
// `mayfly operations`) drives the admin API of the real binary, documents
// go in through the MongoDB Go driver, and the server's manual clock makes
// them expire. Deletions are awaited as the TTL index tests do, by
// completed sweeper passes (ttlEnv.sweep), never by a fixed time.

// mayflyCLI runs a mayfly subcommand against s's admin address and returns
// its stdout and stderr; err is the exit error.
func mayflyCLI(t *testing.T, s *harness.Server, env []string, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	cmd := exec.Command(harness.Binary(t), append(args, "--server", "http://"+s.HTTPAddr)...)
	cmd.Env = append(os.Environ(), env...)
	var out, errOut strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err = cmd.Run()
	return out.String(), errOut.String(), err
}

// mustCLI runs a mayfly subcommand that must succeed and returns its
// stdout.
func mustCLI(t *testing.T, s *harness.Server, args ...string) string {
	t.Helper()
	out, errOut, err := mayflyCLI(t, s, nil, args...)
	if err != nil {
		t.Fatalf("mayfly %s: %v\nstdout: %s\nstderr: %s", strings.Join(args, " "), err, out, errOut)
	}
	return out
}

// cliJSON runs a mayfly subcommand with --format=json and decodes its
// output into v.
func cliJSON(t *testing.T, s *harness.Server, v any, args ...string) {
	t.Helper()
	out := mustCLI(t, s, append(args, "--format=json")...)
	if err := json.Unmarshal([]byte(out), v); err != nil {
		t.Fatalf("mayfly %s: decode %q: %v", strings.Join(args, " "), out, err)
	}
}

// The JSON the CLI prints, as much of it as the tests read.
type (
	cliProgress struct {
		DocumentsScanned  int64 `json:"documentsScanned"`
		DocumentsEstimate int64 `json:"documentsEstimate"`
		ExpiredFound      int64 `json:"expiredFound"`
	}
	cliOperation struct {
		ID       string      `json:"id"`
		Type     string      `json:"type"`
		State    string      `json:"state"`
		Done     bool        `json:"done"`
		Error    string      `json:"error"`
		Offset   string      `json:"expirationOffset"`
		Progress cliProgress `json:"progress"`
	}
	cliPolicy struct {
		Group   string `json:"collectionGroup"`
		Field   string `json:"field"`
		State   string `json:"state"`
		Offset  string `json:"expirationOffset"`
		Source  string `json:"source"`
		Indexed int    `json:"indexedCollections"`
		Stats   *struct {
			Deleted int64 `json:"deletedDocuments"`
			Lag     struct {
				Count uint64 `json:"count"`
			} `json:"lag"`
		} `json:"stats"`
	}
	cliDryRun struct {
		WouldDelete  int64      `json:"wouldDelete"`
		Scanned      int64      `json:"documentsScanned"`
		Collections  int        `json:"collections"`
		OldestExpiry *time.Time `json:"oldestExpiry"`
		NewestExpiry *time.Time `json:"newestExpiry"`
	}
)

// sessionDoc is a document of a sessions collection expiring at at.
func sessionDoc(id string, at any) bson.D {
	if at == nil {
		return bson.D{{Key: "_id", Value: id}}
	}
	return bson.D{{Key: "_id", Value: id}, {Key: "expireAt", Value: at}}
}

// insertDocs inserts documents through the driver.
func insertDocs(t *testing.T, c *mongo.Collection, docs ...bson.D) {
	t.Helper()
	if _, err := c.InsertMany(t.Context(), docs); err != nil {
		t.Fatal(err)
	}
}

// policyStats returns the deletions and lag count that `mayfly ttls list`
// reports for the sessions policy.
func policyStats(t *testing.T, s *harness.Server) (deleted int64, lagCount uint64) {
	t.Helper()
	var pols []cliPolicy
	cliJSON(t, s, &pols, "ttls", "list", "--collection-group=sessions")
	if len(pols) != 1 || pols[0].Stats == nil {
		t.Fatalf("ttls list: %+v", pols)
	}
	return pols[0].Stats.Deleted, pols[0].Stats.Lag.Count
}

// Ensure the whole life of a policy through the CLI: a dry run, enabling on
// existing data in two databases (expired documents vanish at once and are
// deleted as many as the dry run said), expiry as the clock moves, a
// collection created later, an offset change, the one-field rule, listings,
// metrics, and disabling.
func TestPolicyCLILifecycle(t *testing.T) {
	e := startTTL(t)
	now := e.now()
	app := e.cl.Database("app").Collection("sessions")
	logs := e.cl.Database("logs").Collection("sessions")
	carts := e.cl.Database("app").Collection("carts")
	insertDocs(t, app,
		sessionDoc("a-exp1", dt(now.Add(-time.Hour))),
		sessionDoc("a-exp2", dt(now.Add(-2*time.Hour))),
		sessionDoc("a-exp3", bson.A{dt(now.Add(3 * time.Hour)), dt(now.Add(-time.Minute))}),
		sessionDoc("a-in1h", dt(now.Add(time.Hour))),
		sessionDoc("a-in3h", dt(now.Add(3*time.Hour))),
		sessionDoc("a-text", "2000-01-01"),
		sessionDoc("a-null", nil),
	)
	insertDocs(t, logs,
		sessionDoc("l-exp1", dt(now.Add(-time.Hour))),
		sessionDoc("l-in1h", dt(now.Add(time.Hour))),
	)
	insertDocs(t, carts, sessionDoc("c-exp1", dt(now.Add(-time.Hour))))

	var dry cliDryRun
	cliJSON(t, e.s, &dry, "ttls", "update", "expireAt", "--collection-group=sessions", "--enable-ttl", "--dry-run")
	if dry.WouldDelete != 4 || dry.Scanned != 9 || dry.Collections != 2 || dry.OldestExpiry == nil ||
		!dry.OldestExpiry.Equal(now.Add(-2*time.Hour).Truncate(time.Millisecond)) || !dry.NewestExpiry.Equal(now.Add(-time.Minute).Truncate(time.Millisecond)) {
		t.Fatalf("dry run %+v", dry)
	}
	table := mustCLI(t, e.s, "ttls", "update", "expireAt", "--collection-group=sessions", "--enable-ttl", "--dry-run")
	for _, want := range []string{"Dry run: enabling TTL on sessions.expireAt", "Would delete at once:", "4 documents (9 scanned in 2 collections)", "Estimated time to delete:"} {
		if !strings.Contains(table, want) {
			t.Fatalf("dry run table lacks %q:\n%s", want, table)
		}
	}
	e.wantIDs(app, "a-exp1", "a-exp2", "a-exp3", "a-in1h", "a-in3h", "a-null", "a-text")

	out, progress, err := mayflyCLI(t, e.s, nil, "ttls", "update", "expireAt", "--collection-group=sessions", "--enable-ttl")
	if err != nil || !strings.Contains(out, "ACTIVE") || !strings.Contains(out, "9 of 9 documents scanned") {
		t.Fatalf("enable: %v\n%s\n%s", err, out, progress)
	}
	// Not a terminal: progress comes as lines on stderr, no bar.
	if !strings.Contains(progress, "op-1 ACTIVE: 9 of 9 documents scanned (100%), 4 expired found") || strings.Contains(progress, "\r") {
		t.Fatalf("progress lines: %q", progress)
	}
	e.wantIDs(app, "a-in1h", "a-in3h", "a-null", "a-text")
	e.wantIDs(logs, "l-in1h")
	e.wantIDs(carts, "c-exp1")
	e.sweep(0)
	if deleted, lag := policyStats(t, e.s); deleted != dry.WouldDelete || lag != uint64(deleted) {
		t.Fatalf("the policy deleted %d documents (lag count %d), the dry run said %d", deleted, lag, dry.WouldDelete)
	}

	// A collection created later in the group is covered at once.
	late := e.cl.Database("late").Collection("sessions")
	insertDocs(t, late, sessionDoc("n-exp", dt(now.Add(-time.Hour))), sessionDoc("n-in2h", dt(now.Add(2*time.Hour))))
	e.wantIDs(late, "n-in2h")
	e.sweep(90 * time.Minute)
	e.wantIDs(app, "a-in3h", "a-null", "a-text")
	e.wantIDs(logs)
	e.wantIDs(late, "n-in2h")
	if deleted, _ := policyStats(t, e.s); deleted != 7 {
		t.Fatalf("after 90 minutes the policy deleted %d documents, want 7", deleted)
	}

	// An offset change is metadata only and applies to old data at once.
	var upd cliOperation
	cliJSON(t, e.s, &upd, "ttls", "update", "expireAt", "--collection-group=sessions", "--enable-ttl", "--expiration-offset=2h")
	if upd.Type != "UPDATE_TTL_OFFSET" || !upd.Done || upd.State != "ACTIVE" || upd.Offset != "2h0m0s" {
		t.Fatalf("offset change %+v", upd)
	}
	e.sweep(time.Hour) // n-in2h is due at +2h plus 2h of offset
	e.wantIDs(late, "n-in2h")

	// One TTL field per collection group.
	_, errOut, err := mayflyCLI(t, e.s, nil, "ttls", "update", "other", "--collection-group=sessions", "--enable-ttl")
	if err == nil || !strings.Contains(errOut, `FAILED_PRECONDITION: TTL policy conflict: collection group "sessions" already has a TTL policy on field "expireAt"`) {
		t.Fatalf("second field: %v %s", err, errOut)
	}

	list := mustCLI(t, e.s, "ttls", "list")
	if !strings.Contains(list, "COLLECTION_GROUP") || !regexpLine(list, "sessions", "expireAt", "ACTIVE", "2h0m0s", "3/3", "7") {
		t.Fatalf("ttls list:\n%s", list)
	}
	ops := mustCLI(t, e.s, "operations", "list")
	if !regexpLine(ops, "op-2", "UPDATE_TTL_OFFSET", "sessions", "expireAt", "ACTIVE", "true") || !regexpLine(ops, "op-1", "ENABLE_TTL", "9/9") {
		t.Fatalf("operations list:\n%s", ops)
	}
	var op1 cliOperation
	cliJSON(t, e.s, &op1, "operations", "describe", "op-1")
	if op1.State != "ACTIVE" || op1.Progress != (cliProgress{DocumentsScanned: 9, DocumentsEstimate: 9, ExpiredFound: 4}) {
		t.Fatalf("operations describe op-1: %+v", op1)
	}
	_, errOut, err = mayflyCLI(t, e.s, nil, "operations", "describe", "op-99")
	if err == nil || !strings.Contains(errOut, "NOT_FOUND") {
		t.Fatalf("describe of a missing operation: %v %s", err, errOut)
	}

	metrics := scrapeMetrics(t, e.s)
	for _, want := range []string{
		`mayfly_expiry_source_deleted_total{kind="policy",source="policy:sessions.expireAt"} 7`,
		`mayfly_expiry_source_lag_seconds_count{kind="policy",source="policy:sessions.expireAt"} 7`,
	} {
		if !strings.Contains(metrics, want) {
			t.Fatalf("/metrics lacks %s", want)
		}
	}

	var dis cliOperation
	cliJSON(t, e.s, &dis, "ttls", "update", "expireAt", "--collection-group=sessions", "--disable-ttl")
	if dis.Type != "DISABLE_TTL" || dis.State != "DISABLED" || !dis.Done {
		t.Fatalf("disable %+v", dis)
	}
	insertDocs(t, app, sessionDoc("a-after", dt(now.Add(-time.Hour))))
	e.sweep(0)
	e.wantIDs(app, "a-after", "a-in3h", "a-null", "a-text")
}

// regexpLine reports whether some line of text holds every word, in order,
// as whole whitespace-separated fields.
func regexpLine(text string, words ...string) bool {
	for _, line := range strings.Split(text, "\n") {
		fields := strings.Fields(line)
		i := 0
		for _, f := range fields {
			if i < len(words) && f == words[i] {
				i++
			}
		}
		if i == len(words) {
			return true
		}
	}
	return false
}

// Ensure that an operation cut short by a crash resumes where it stopped
// when the server restarts on the same data directory, and finishes having
// scanned each document once; the backlog it found is then deleted.
func TestPolicyOperationResumesAfterRestart(t *testing.T) {
	args := []string{"--manual-clock", "--set-parameter", "ttlMonitorSleepSecs=1", "--expiry-visibility", "lazy"}
	s := harness.Start(t, args...)
	e := newTTLEnv(t, s)
	now := e.now()
	coll := e.cl.Database("app").Collection("sessions")
	var docs []bson.D
	for i := range 2500 {
		at := now.Add(time.Hour)
		if i%5 < 2 {
			at = now.Add(-time.Hour)
		}
		docs = append(docs, sessionDoc(fmt.Sprintf("d%04d", i), dt(at)))
	}
	insertDocs(t, coll, docs...)

	var op cliOperation
	cliJSON(t, s, &op, "ttls", "update", "expireAt", "--collection-group=sessions", "--enable-ttl", "--async")
	if op.ID != "op-1" || op.Done || op.State != "CREATING" {
		t.Fatalf("enable --async: %+v", op)
	}
	// The build indexes 1,000 documents, then waits for the (stopped)
	// clock to allow its next chunk.
	eventually(t, 20*time.Second, "first chunk", func() bool {
		cliJSON(t, s, &op, "operations", "describe", "op-1")
		return op.Progress.DocumentsScanned == 1000
	})
	if op.Done || op.Progress.ExpiredFound != 400 {
		t.Fatalf("after the first chunk: %+v", op)
	}
	e.cl.Disconnect(t.Context())
	s.Kill()

	s = harness.StartDir(t, s.Dir, args...)
	e = newTTLEnv(t, s)
	cliJSON(t, s, &op, "operations", "describe", "op-1")
	if op.Done || op.State != "CREATING" || op.Progress.DocumentsScanned < 1000 {
		t.Fatalf("after the restart: %+v", op)
	}
	var pols []cliPolicy
	cliJSON(t, s, &pols, "ttls", "list")
	if len(pols) != 1 || pols[0].State != "CREATING" {
		t.Fatalf("policies after the restart: %+v", pols)
	}
	eventually(t, 20*time.Second, "build done", func() bool {
		s.Advance(t, time.Second)
		cliJSON(t, s, &op, "operations", "describe", "op-1")
		return op.Done
	})
	want := cliProgress{DocumentsScanned: 2500, DocumentsEstimate: 2500, ExpiredFound: 1000}
	if op.State != "ACTIVE" || op.Progress != want {
		t.Fatalf("resumed operation %+v, want ACTIVE with %+v (a restart from scratch scans 3,500)", op, want)
	}
	e.sweep(0)
	n, err := e.cl.Database("app").Collection("sessions").CountDocuments(t.Context(), bson.D{})
	if err != nil || n != 1500 {
		t.Fatalf("%d documents left (%v), want 1500", n, err)
	}
}

// Ensure that with --admin-token-file the CLI needs a token granting each
// permission, reads it from --token-file or $MAYFLY_ADMIN_TOKEN, and that
// the server refuses a malformed token file at startup.
func TestPolicyAdminTokens(t *testing.T) {
	dir := t.TempDir()
	const reader, root = "reader-0123456789abcdef", "root-0123456789abcdef"
	tokens := filepath.Join(dir, "tokens")
	if err := os.WriteFile(tokens, []byte("# mayfly admin tokens\n"+reader+" ttl.policies.list,ttl.policies.get\n"+root+" *\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	readerFile := filepath.Join(dir, "reader")
	if err := os.WriteFile(readerFile, []byte(reader+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := harness.Start(t, "--admin-token-file", tokens)

	_, errOut, err := mayflyCLI(t, s, nil, "ttls", "list")
	if err == nil || !strings.Contains(errOut, "UNAUTHENTICATED: missing bearer token") {
		t.Fatalf("no token: %v %s", err, errOut)
	}
	if out, errOut, err := mayflyCLI(t, s, nil, "ttls", "list", "--token-file", readerFile); err != nil || !strings.Contains(out, "No TTL policies.") {
		t.Fatalf("reader lists: %v %s %s", err, out, errOut)
	}
	_, errOut, err = mayflyCLI(t, s, nil, "ttls", "update", "expireAt", "--collection-group=sessions", "--enable-ttl", "--token-file", readerFile)
	if err == nil || !strings.Contains(errOut, "PERMISSION_DENIED: permission ttl.policies.update denied") {
		t.Fatalf("reader updates: %v %s", err, errOut)
	}
	_, errOut, err = mayflyCLI(t, s, []string{"MAYFLY_ADMIN_TOKEN=" + reader}, "operations", "list")
	if err == nil || !strings.Contains(errOut, "permission operations.list denied") {
		t.Fatalf("reader lists operations: %v %s", err, errOut)
	}
	if out, errOut, err := mayflyCLI(t, s, []string{"MAYFLY_ADMIN_TOKEN=" + root}, "ttls", "update", "expireAt", "--collection-group=sessions", "--enable-ttl"); err != nil || !strings.Contains(out, "ACTIVE") {
		t.Fatalf("root updates: %v %s %s", err, out, errOut)
	}
	if metrics := scrapeMetrics(t, s); !strings.Contains(metrics, "mayfly_expiry_passes_total") {
		t.Fatal("/metrics is not open without a token")
	}

	bad := filepath.Join(dir, "bad")
	if err := os.WriteFile(bad, []byte("short ttl.policies.list\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(harness.Binary(t), "serve", "--dir", t.TempDir(), "--mongo-addr", "127.0.0.1:0", "--resp-addr", "",
		"--http-addr", "127.0.0.1:0", "--admin-token-file", bad).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "token shorter than 16 characters") || strings.Count(strings.TrimSpace(string(out)), "\n") != 0 {
		t.Fatalf("serve with a bad token file: %v %q", err, out)
	}
}

// Ensure that the CLI refuses contradictory flags before it contacts a
// server.
func TestPolicyCLIFlags(t *testing.T) {
	cases := map[string]struct {
		args []string
		want string
	}{
		"no group":           {[]string{"ttls", "update", "at", "--enable-ttl"}, "--collection-group is required"},
		"both":               {[]string{"ttls", "update", "at", "--collection-group=s", "--enable-ttl", "--disable-ttl"}, "exactly one of --enable-ttl and --disable-ttl"},
		"neither":            {[]string{"ttls", "update", "at", "--collection-group=s"}, "exactly one of --enable-ttl and --disable-ttl"},
		"offset on disable":  {[]string{"ttls", "update", "at", "--collection-group=s", "--disable-ttl", "--expiration-offset=1h"}, "--expiration-offset applies only with --enable-ttl"},
		"dry run of disable": {[]string{"ttls", "update", "at", "--collection-group=s", "--disable-ttl", "--dry-run"}, "--dry-run previews --enable-ttl"},
		"no field":           {[]string{"ttls", "update", "--collection-group=s", "--enable-ttl"}, "accepts 1 arg(s)"},
		"bad format":         {[]string{"ttls", "list", "--format=yaml"}, `unknown format "yaml"`},
		"bad server":         {[]string{"operations", "list", "--server=ftp://x"}, "want http://HOST:PORT"},
		"unreachable":        {[]string{"operations", "list", "--server=127.0.0.1:1"}, "admin API at http://127.0.0.1:1"},
		"describe no id":     {[]string{"operations", "describe"}, "accepts 1 arg(s)"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			out, err := exec.Command(harness.Binary(t), c.args...).CombinedOutput()
			text := strings.TrimSpace(string(out))
			if err == nil || !strings.Contains(text, c.want) || strings.Contains(text, "panic") {
				t.Fatalf("mayfly %s: %v %q, want %q", strings.Join(c.args, " "), err, text, c.want)
			}
		})
	}
	help, err := exec.Command(harness.Binary(t), "ttls", "--help").Output()
	if err != nil || !slices.ContainsFunc(strings.Split(string(help), "\n"), func(l string) bool { return strings.Contains(l, "ttl.policies.update") }) {
		t.Fatalf("ttls --help does not name the permissions: %v\n%s", err, help)
	}
}
