package integration_test

import (
	"runtime"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// With --background-priority low the TTL reaper deletes exactly what it
// does at normal priority, and a pass that ends within its first 100 ms
// prepares its batches on the sweeper's thread, not the low-priority one;
// /metrics says where the preparations ran.
func TestBackgroundPriorityLow(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("threads are lowered on Linux only")
	}
	for _, prio := range []string{"low", "normal"} {
		t.Run(prio, func(t *testing.T) {
			e := startTTL(t, "--background-priority", prio)
			c := e.cl.Database("app").Collection("s")
			if _, err := c.Indexes().CreateOne(t.Context(), mongo.IndexModel{Keys: bson.D{{Key: "at", Value: 1}}, Options: options.Index().SetExpireAfterSeconds(0)}); err != nil {
				t.Fatal(err)
			}
			t0 := e.now()
			var docs []any
			for i := range 2500 {
				at := t0.Add(time.Minute)
				if i%5 == 0 {
					at = t0.Add(time.Hour) // these stay
				}
				docs = append(docs, bson.D{{Key: "_id", Value: i}, {Key: "at", Value: dt(at)}})
			}
			if _, err := c.InsertMany(t.Context(), docs); err != nil {
				t.Fatal(err)
			}
			e.sweep(time.Minute)
			if n, err := c.CountDocuments(t.Context(), bson.D{}); err != nil || n != 500 {
				t.Fatalf("%d documents left (%v), want 500", n, err)
			}
			if got := e.counter("deletedDocuments"); got != 2000 {
				t.Fatalf("deletedDocuments = %d, want 2000", got)
			}
			idle := metricValue(t, e.s, `mayfly_expiry_prepares_total{priority="idle"}`)
			normal := metricValue(t, e.s, `mayfly_expiry_prepares_total{priority="normal"}`)
			busy := metricValue(t, e.s, "mayfly_expiry_idle_busy_total")
			starved := metricValue(t, e.s, "mayfly_expiry_idle_starved_total")
			// The manual clock stands still during the pass, so every batch is
			// within the pass's first 100 ms, which is never paced and
			// prepares on the sweeper's thread at either priority (the
			// low-priority thread serves the batches of longer passes: the
			// expiry package's tests); the reaper deletes the same either way.
			switch {
			case idle+normal < 2:
				t.Errorf("%s: %v preparations, want at least 2", prio, idle+normal)
			case prio == "low" && (idle != 0 || starved != 0):
				t.Errorf("low: %v preparations on the low-priority thread, %v starved; want none within the pass's burst", idle, starved)
			case prio == "normal" && (idle != 0 || busy != 0 || starved != 0):
				t.Errorf("normal: %v preparations on a low-priority thread, %v busy, %v starved; want none", idle, busy, starved)
			}
			e.stop()
		})
	}
}
