package admin_test

import (
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/admin"
	"github.com/mayfly/mayfly/internal/docdb"
)

// sessionsSource is the expiry source of the TTL index the tests make.
const sessionsSource = "ttl_index:app.sessions.at_1"

// withSessionsIndex creates app.sessions's TTL index on at with
// expireAfterSeconds 3600 and documents dated 2 h, 50 min, 40 min and
// 9 min 30 s ago: one overdue, the others due 10 min, 20 min and 50 min
// 30 s from now.
func withSessionsIndex(t *testing.T, e *consoleEnv) {
	t.Helper()
	if _, err := e.db.CreateIndexes(context.Background(), "app", "sessions", []docdb.IndexSpec{{Key: bson.D{{Key: "at", Value: int32(1)}}, Name: "at_1",
		Options: bson.D{{Key: "expireAfterSeconds", Value: int32(3600)}}}}); err != nil {
		t.Fatal(err)
	}
	e.insertDates(t, "sessions", -2*time.Hour, -50*time.Minute, -40*time.Minute, -9*time.Minute-30*time.Second)
}

func sourceEntry(t *testing.T, e *consoleEnv, name string) admin.SourceEntry {
	t.Helper()
	for _, s := range getJSON[admin.Sources](t, e.url+"/v1/console/sources").Sources {
		if s.Name == name {
			return s
		}
	}
	t.Fatalf("no source %s", name)
	return admin.SourceEntry{}
}

func secs(f float64) *float64 { return &f }

// Ensure that a TTL index's expireAfterSeconds is previewed exactly (the
// documents that would go at once and their due times, nothing changed)
// and then changed by collMod, after which the sources table and the
// timeline follow the new value.
func TestConsoleTTLIndexChange(t *testing.T) {
	e := newConsoleEnv(t)
	withSessionsIndex(t, e)
	ctx := context.Background()
	now := e.clock.Now()
	c, err := admin.NewClient(e.url, "")
	if err != nil {
		t.Fatal(err)
	}

	// 1800 s: the documents of 50 and 40 minutes ago become due at once,
	// due 20 and 10 minutes ago.
	dr, err := c.DryRunTTLIndex(ctx, sessionsSource, admin.UpdateTTLIndexRequest{ExpireAfterSeconds: secs(1800)})
	if err != nil {
		t.Fatal(err)
	}
	if dr.WouldDelete != 2 || dr.ExpireAfterSecondsOld != 3600 || dr.ExpireAfterSecondsNew != 1800 || !dr.At.Equal(now) ||
		dr.DB != "app" || dr.Collection != "sessions" || dr.Index != "at_1" || dr.Field != "at" {
		t.Fatalf("dry run %+v", dr)
	}
	if dr.OldestExpiry == nil || !dr.OldestExpiry.Equal(now.Add(-20*time.Minute)) || dr.NewestExpiry == nil || !dr.NewestExpiry.Equal(now.Add(-10*time.Minute)) {
		t.Fatalf("dry run range %v .. %v, want %v .. %v", dr.OldestExpiry, dr.NewestExpiry, now.Add(-20*time.Minute), now.Add(-10*time.Minute))
	}
	if dr.EstimatedDeleteSeconds != nil {
		t.Errorf("an estimate %v with no deletion rate known", *dr.EstimatedDeleteSeconds)
	}
	// A longer TTL makes nothing due.
	longer, err := c.DryRunTTLIndex(ctx, sessionsSource, admin.UpdateTTLIndexRequest{ExpireAfterSeconds: secs(7200)})
	if err != nil {
		t.Fatal(err)
	}
	if longer.WouldDelete != 0 || longer.OldestExpiry != nil || longer.NewestExpiry != nil {
		t.Fatalf("dry run of a longer TTL %+v", longer)
	}
	if src := sourceEntry(t, e, sessionsSource); *src.ExpireAfterSeconds != 3600 || src.DueNow != 1 {
		t.Fatalf("after the dry runs the source is %+v, want it unchanged", src)
	}

	e.clock.Add(time.Second)
	ch, err := c.UpdateTTLIndex(ctx, sessionsSource, admin.UpdateTTLIndexRequest{ExpireAfterSeconds: secs(1800)})
	if err != nil {
		t.Fatal(err)
	}
	want := admin.TTLIndexChange{Type: "COLLMOD_EXPIRE_AFTER_SECONDS", Source: sessionsSource, DB: "app", Collection: "sessions", Index: "at_1",
		ExpireAfterSecondsOld: 3600, ExpireAfterSecondsNew: 1800, State: "DONE", Done: true, StartTime: now.Add(time.Second), EndTime: now.Add(time.Second)}
	if !ch.StartTime.Equal(want.StartTime) || !ch.EndTime.Equal(want.EndTime) {
		t.Fatalf("change times %v .. %v, want %v", ch.StartTime, ch.EndTime, want.StartTime)
	}
	ch.StartTime, ch.EndTime = want.StartTime, want.EndTime
	if ch != want {
		t.Fatalf("change %+v, want %+v", ch, want)
	}
	src := sourceEntry(t, e, sessionsSource)
	if *src.ExpireAfterSeconds != 1800 || src.Rule != "app.sessions: at + 1800s" || src.DueNow != 3 || src.Items != 4 {
		t.Fatalf("after the change the source is %+v", src)
	}
	// The document of 9 min 30 s ago is now due in 20 min 30 s (less the
	// second the clock moved): bucket 20 of the hour.
	tl := getJSON[admin.Timeline](t, e.url+"/v1/console/timeline?span=hour&source="+sessionsSource)
	row := tl.Sources[0]
	if row.Backlog != 3 || row.Counts[20] != 1 {
		t.Fatalf("timeline after the change: backlog %d, counts %v", row.Backlog, row.Counts)
	}
	// MongoDB sees the new value too.
	specs, err := e.db.ListIndexes(ctx, "app", "sessions")
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, spec := range specs {
		m := map[string]any{}
		for _, f := range spec {
			m[f.Key] = f.Value
		}
		if m["name"] == "at_1" && m["expireAfterSeconds"] == int32(1800) {
			found = true
		}
	}
	if !found {
		t.Fatalf("listIndexes after the change: %v", specs)
	}
}

// Ensure that a bad request gets MongoDB's message for the value, and an
// unknown source 404.
func TestConsoleTTLIndexErrors(t *testing.T) {
	e := newConsoleEnv(t)
	withSessionsIndex(t, e)
	c, err := admin.NewClient(e.url, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		source string
		secs   *float64
		status int
		msg    string
	}{
		{sessionsSource, secs(-1), 400, "TTL index 'expireAfterSeconds' option cannot be less than 0"},
		{sessionsSource, secs(2147483648), 400, "TTL index 'expireAfterSeconds' option cannot be greater than max int32_t (2147483647)"},
		{sessionsSource, secs(1.5), 400, "whole number of seconds"},
		{sessionsSource, nil, 400, "expireAfterSeconds is required"},
		{"ttl_index:app.sessions.nope", secs(10), 404, `no TTL index with expiry source "ttl_index:app.sessions.nope"`},
		{"redis_keys:db0", secs(10), 404, "no TTL index"},
	} {
		for _, dry := range []bool{true, false} {
			var err error
			if dry {
				_, err = c.DryRunTTLIndex(context.Background(), tc.source, admin.UpdateTTLIndexRequest{ExpireAfterSeconds: tc.secs})
			} else {
				_, err = c.UpdateTTLIndex(context.Background(), tc.source, admin.UpdateTTLIndexRequest{ExpireAfterSeconds: tc.secs})
			}
			var ae *admin.APIError
			if !errors.As(err, &ae) || ae.Status != tc.status || !strings.Contains(ae.Message, tc.msg) {
				t.Errorf("%s %v dryRun %v: %v, want %d %q", tc.source, tc.secs, dry, err, tc.status, tc.msg)
			}
		}
	}
	resp, err := http.DefaultClient.Do(mustRequest(t, "PATCH", e.url+"/v1/ttl/indexes/"+sessionsSource, `{"expireAfterSeconds": 5, "extra": 1}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 400 {
		t.Errorf("an unknown field: %d", resp.StatusCode)
	}
	if src := sourceEntry(t, e, sessionsSource); *src.ExpireAfterSeconds != 3600 {
		t.Errorf("the failed requests changed the index: %+v", src)
	}
}

func mustRequest(t *testing.T, method, url, body string) *http.Request {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	return req
}

// Ensure that previewing and changing a TTL index needs a token granting
// ttl.policies.update: 401 without one, 403 with a token that grants
// only reading.
func TestConsoleTTLIndexPermission(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tokens")
	const reader, updater = "reader-0123456789abcdef", "updater-0123456789abcdef"
	if err := os.WriteFile(path, []byte(reader+" ttl.policies.list,ttl.policies.get\n"+updater+" ttl.policies.update\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tokens, err := admin.OpenTokenFile(path, func(string) {})
	if err != nil {
		t.Fatal(err)
	}
	e := newConsoleEnvWithTokens(t, tokens)
	withSessionsIndex(t, e)
	for _, tc := range []struct {
		token  string
		status int
		code   string
	}{{"", 401, admin.CodeUnauthenticated}, {reader, 403, admin.CodePermissionDenied}, {updater, 0, ""}} {
		c, err := admin.NewClient(e.url, tc.token)
		if err != nil {
			t.Fatal(err)
		}
		_, errDry := c.DryRunTTLIndex(context.Background(), sessionsSource, admin.UpdateTTLIndexRequest{ExpireAfterSeconds: secs(60)})
		_, errSet := c.UpdateTTLIndex(context.Background(), sessionsSource, admin.UpdateTTLIndexRequest{ExpireAfterSeconds: secs(60)})
		for _, err := range []error{errDry, errSet} {
			var ae *admin.APIError
			switch {
			case tc.status == 0 && err != nil:
				t.Errorf("token %q: %v", tc.token, err)
			case tc.status != 0 && (!errors.As(err, &ae) || ae.Status != tc.status || ae.Code != tc.code):
				t.Errorf("token %q: %v, want %d %s", tc.token, err, tc.status, tc.code)
			}
		}
	}
	if src := sourceEntry(t, e, sessionsSource); *src.ExpireAfterSeconds != 60 {
		t.Errorf("the updater's change did not apply: %+v", src)
	}
}

// Ensure that a clustered collection's TTL (on its _id dates) is changed
// as the collection's expireAfterSeconds, which collMod changes for it.
func TestConsoleTTLIndexClustered(t *testing.T) {
	e := newConsoleEnv(t)
	ctx := context.Background()
	hour := int64(3600)
	if err := e.db.CreateCollection(ctx, "app", "logs", docdb.CreateCollectionRequest{Clustered: true, ExpireAfterSeconds: &hour}); err != nil {
		t.Fatal(err)
	}
	now := e.clock.Now()
	var docs []bson.Raw
	for _, off := range []time.Duration{-50 * time.Minute, -40 * time.Minute, -5 * time.Minute} {
		raw, err := bson.Marshal(bson.D{{Key: "_id", Value: bson.NewDateTimeFromTime(now.Add(off))}})
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, raw)
	}
	if _, err := e.db.Insert(ctx, "app", "logs", docdb.InsertRequest{Documents: docs, Ordered: true}); err != nil {
		t.Fatal(err)
	}
	const source = "ttl_index:app.logs._id_"
	c, err := admin.NewClient(e.url, "")
	if err != nil {
		t.Fatal(err)
	}
	dr, err := c.DryRunTTLIndex(ctx, source, admin.UpdateTTLIndexRequest{ExpireAfterSeconds: secs(1800)})
	if err != nil {
		t.Fatal(err)
	}
	if dr.WouldDelete != 2 || dr.ExpireAfterSecondsOld != 3600 || dr.Field != "_id" {
		t.Fatalf("dry run %+v", dr)
	}
	ch, err := c.UpdateTTLIndex(ctx, source, admin.UpdateTTLIndexRequest{ExpireAfterSeconds: secs(1800)})
	if err != nil {
		t.Fatal(err)
	}
	if ch.ExpireAfterSecondsOld != 3600 || ch.ExpireAfterSecondsNew != 1800 || !ch.Done {
		t.Fatalf("change %+v", ch)
	}
	if src := sourceEntry(t, e, source); *src.ExpireAfterSeconds != 1800 || src.DueNow != 2 {
		t.Fatalf("after the change the source is %+v", src)
	}
}
