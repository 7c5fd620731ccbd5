package integration_test

import (
	"bytes"
	"os"
	"strconv"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// Ensure that a change stream watching expirations receives every
// deletion of a TTL storm exactly once, each marked with expiredBy:
// 10,000 documents fall due at once and the expiry engine deletes them over
// several visits of many batches while the stream reads. The visit and
// batch limits are a tenth of the defaults, so that the storm has the shape
// 100,000 documents have under the defaults (two visits of 50 batches).
// MAYFLY_TTL_STORM_DOCS sets another count under the default limits (the
// 1,000,000 of BENCHMARKS.md).
func TestChangeStreamTTLStorm(t *testing.T) {
	if testing.Short() {
		t.Skip("inserts 10,000 documents")
	}
	n := 10_000
	args := []string{"--change-streams",
		"--set-parameter", "ttlIndexDeleteTargetDocs=5000", "--set-parameter", "ttlDeleteBatchSize=100"}
	if v := os.Getenv("MAYFLY_TTL_STORM_DOCS"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil || n <= 0 {
			t.Fatalf("MAYFLY_TTL_STORM_DOCS=%q", v)
		}
		args = args[:1]
	}
	e := startTTL(t, args...)
	ctx := t.Context()
	c := e.cl.Database("app").Collection("storm")
	if _, err := c.Indexes().CreateOne(ctx, mongo.IndexModel{
		Keys: bson.D{{Key: "at", Value: 1}}, Options: options.Index().SetExpireAfterSeconds(60).SetName("at_ttl"),
	}); err != nil {
		t.Fatal(err)
	}
	cs := watch(t, c, mongo.Pipeline{{{Key: "$match", Value: bson.D{
		{Key: "operationType", Value: "delete"}, {Key: "expiredBy", Value: bson.D{{Key: "$exists", Value: true}}},
	}}}}, options.ChangeStream().SetMaxAwaitTime(100*time.Millisecond))
	at := dt(e.now())
	began := time.Now()
	docs := make([]any, 0, 1000)
	for i := range n {
		docs = append(docs, bson.D{{Key: "_id", Value: int32(i)}, {Key: "at", Value: at}})
		if len(docs) == cap(docs) {
			if _, err := c.InsertMany(ctx, docs); err != nil {
				t.Fatal(err)
			}
			docs = docs[:0]
		}
	}
	inserted := time.Since(began)
	start := time.Now()
	e.s.Advance(t, 2*time.Minute)
	seen := make([]bool, n)
	got, idle := 0, 0
	var lastToken bson.Raw
	for got < n {
		if cs.TryNext(ctx) {
			idle = 0
			ev := cs.Current
			id := ev.Lookup("documentKey", "_id").Int32()
			if id < 0 || int(id) >= n || seen[id] {
				t.Fatalf("event for _id %d, twice or unknown: %s", id, ev)
			}
			seen[id] = true
			got++
			if str(ev, "expiredBy", "source") != "ttl" || str(ev, "expiredBy", "index") != "at_ttl" {
				t.Fatalf("expiredBy %s", ev)
			}
			continue
		}
		if err := cs.Err(); err != nil {
			t.Fatal(err)
		}
		// An empty batch that moved the resume token went past events the
		// pipeline dropped; one that did not may wait for the expiry
		// engine's next pass.
		if tok := cs.ResumeToken(); !bytes.Equal(tok, lastToken) {
			lastToken, idle = append(lastToken[:0], tok...), 0
			continue
		}
		if idle++; idle > 100 {
			left, err := c.CountDocuments(ctx, bson.D{})
			t.Fatalf("%d of %d expirations received; %d documents left (%v), %d deleted by TTL, %d passes", got, n, left, err,
				serverStatusPath(t, e.cl, "metrics.ttl.deletedDocuments"), serverStatusPath(t, e.cl, "metrics.ttl.passes"))
		}
		if serverStatusPath(t, e.cl, "metrics.ttl.deletedDocuments") < int64(n) {
			e.s.Advance(t, time.Second)
		}
	}
	t.Logf("%d documents inserted in %s; %d expirations received in %s after the clock moved past their due time", n, inserted, n, time.Since(start))
	if left, err := c.CountDocuments(ctx, bson.D{}); err != nil || left != 0 {
		t.Fatalf("documents left: %d, %v", left, err)
	}
	if cs.TryNext(ctx) {
		t.Fatalf("an event past the storm: %s", cs.Current)
	}
}
