package integration_test

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// insertDue creates a TTL index {at: 1} on app.<coll> and inserts n
// documents due at due.
func (e *ttlEnv) insertDue(coll string, first, n int, due time.Time) *mongo.Collection {
	e.t.Helper()
	c := e.cl.Database("app").Collection(coll)
	if _, err := c.Indexes().CreateOne(e.t.Context(), mongo.IndexModel{Keys: bson.D{{Key: "at", Value: 1}}, Options: options.Index().SetExpireAfterSeconds(0)}); err != nil {
		e.t.Fatal(err)
	}
	var docs []any
	for i := first; i < first+n; i++ {
		docs = append(docs, bson.D{{Key: "_id", Value: i}, {Key: "at", Value: dt(due)}})
	}
	if _, err := c.InsertMany(e.t.Context(), docs); err != nil {
		e.t.Fatal(err)
	}
	return c
}

// batchedDeletes returns serverStatus's batchedDeletes batches and docs.
func (e *ttlEnv) batchedDeletes() (batches, docs int64) {
	e.t.Helper()
	r := e.mustRun("admin", bson.D{{Key: "serverStatus", Value: 1}})
	return r.Lookup("batchedDeletes", "batches").Int64(), r.Lookup("batchedDeletes", "docs").Int64()
}

// Ensure that serverStatus's batchedDeletes counts only the TTL monitor's
// batched deletes: nothing while ttlMonitorBatchDeletes is false, as
// MongoDB, whose TTL deletes are then not batched.
func TestTTLBatchedDeletesOnlyWhenBatched(t *testing.T) {
	e := startTTL(t, "--set-parameter", "ttlMonitorBatchDeletes=false")
	e.insertDue("unbatched", 0, 20, e.now().Add(time.Second))
	e.sweep(2 * time.Second)
	if n := e.counter("deletedDocuments"); n != 20 {
		t.Fatalf("deletedDocuments %d, want 20", n)
	}
	if b, d := e.batchedDeletes(); b != 0 || d != 0 {
		t.Fatalf("batchedDeletes {batches: %d, docs: %d} with ttlMonitorBatchDeletes false, want 0 and 0", b, d)
	}

	e.mustRun("admin", bson.D{{Key: "setParameter", Value: 1}, {Key: "ttlMonitorBatchDeletes", Value: true}})
	e.insertDue("batched", 100, 30, e.now().Add(time.Second))
	e.sweep(2 * time.Second)
	if n := e.counter("deletedDocuments"); n != 50 {
		t.Fatalf("deletedDocuments %d, want 50", n)
	}
	if b, d := e.batchedDeletes(); b < 1 || d != 30 {
		t.Fatalf("batchedDeletes {batches: %d, docs: %d}, want at least one batch and 30 docs", b, d)
	}
}

// Ensure that metrics.ttl.backlog counts the documents that are due while
// the TTL monitor is disabled, and follows the clock.
func TestTTLBacklogWhileMonitorDisabled(t *testing.T) {
	e := startTTL(t, "--set-parameter", "ttlMonitorEnabled=false")
	t0 := e.now()
	e.insertDue("sessions", 0, 10, t0.Add(time.Second))
	e.insertDue("sessions", 10, 5, t0.Add(time.Minute))
	backlog := func() (total, source int64) {
		m := e.ttl()
		return m.Lookup("backlog").Int64(), m.Lookup("sources", "ttl_index:app.sessions.at_1", "backlog").Int64()
	}
	if total, src := backlog(); total != 0 || src != 0 {
		t.Fatalf("backlog %d (source %d) before anything is due", total, src)
	}
	e.s.Advance(t, 2*time.Second)
	if total, src := backlog(); total != 10 || src != 10 {
		t.Fatalf("backlog %d (source %d) with 10 documents due, want 10", total, src)
	}
	e.s.Advance(t, time.Minute)
	if total, src := backlog(); total != 15 || src != 15 {
		t.Fatalf("backlog %d (source %d) with 15 documents due, want 15", total, src)
	}
	if n := e.counter("deletedDocuments"); n != 0 {
		t.Fatalf("the disabled monitor deleted %d documents", n)
	}
	// /metrics counts it too.
	resp, err := http.Get("http://" + e.s.HTTPAddr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	want := `mayfly_expiry_source_backlog{kind="ttl_index",source="ttl_index:app.sessions.at_1"} 15`
	if !strings.Contains(string(body), want) {
		t.Fatalf("/metrics lacks %s", want)
	}
}
