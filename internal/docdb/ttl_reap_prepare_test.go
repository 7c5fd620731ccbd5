package docdb

import (
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/expiry"
)

// Ensure that a batch built without the collection's write lock is built
// again under it when a write came in between: a document moved to a later
// date, deleted or replaced, or an index added, so that the reaper deletes
// exactly what it would have deleted holding the lock all along: no
// document that is no longer due, and no index entry or counter left wrong
// (newTestEngine's cleanup runs the consistency check).
func TestReapBatchBuiltAgainAfterAConcurrentWrite(t *testing.T) {
	cases := []struct {
		name      string
		change    func(te *testEngine, now time.Time)
		wantItems int
		wantLeft  int
		wantKeys  int // index keys deleted, _id included
	}{
		{"no change", func(*testEngine, time.Time) {}, 4, 0, 8},
		{"a document moved later", func(te *testEngine, now time.Time) {
			te.mustUpdate("app", "s", UpdateStatement{Filter: d("_id", int32(1)), Update: d("$set", d("at", date(now.Add(time.Hour))))})
		}, 3, 1, 6},
		{"a document deleted", func(te *testEngine, now time.Time) {
			if _, err := te.Delete(t.Context(), "app", "s", DeleteRequest{Statements: []DeleteStatement{{Filter: d("_id", int32(2))}}, Ordered: true}); err != nil {
				t.Fatal(err)
			}
		}, 3, 0, 6},
		{"a document replaced, still due", func(te *testEngine, now time.Time) {
			te.mustUpdate("app", "s", UpdateStatement{Filter: d("_id", int32(3)), Update: d("at", date(now.Add(-time.Minute)), "k", int32(9))})
		}, 4, 0, 8},
		{"an index added", func(te *testEngine, now time.Time) {
			te.mustCreateIndexes("app", "s", d("key", d("k", int32(1)), "name", "k_1"))
		}, 4, 0, 12},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			reg := newFakeRegistry()
			// Lazy visibility, so the writes below see the expired documents.
			te := newTestEngine(t, func(o *Options) { o.Expiry, o.Visibility = reg, VisibilityLazy })
			now := te.clock.Now()
			te.mustCreateIndexes("app", "s", d("key", d("at", int32(1)), "name", "at_1", "expireAfterSeconds", int32(0)))
			var docs []bson.D
			for i := range 4 {
				docs = append(docs, d("_id", int32(i), "at", date(now.Add(-time.Duration(10-i)*time.Minute)), "k", int32(i)))
			}
			te.mustInsert("app", "s", docs...)
			src := reg.get("ttl_index:app.s.at_1").(*ttlSource)
			src.afterPrepare = func() {
				src.afterPrepare = nil
				tc.change(te, now)
			}
			r, err := expiry.Drain(t.Context(), src, now, 10, 10)
			if err != nil {
				t.Fatal(err)
			}
			if r.Items != tc.wantItems || r.Keys != tc.wantKeys || r.More {
				t.Fatalf("reaped %d items, %d keys, more %v; want %d, %d, false", r.Items, r.Keys, r.More, tc.wantItems, tc.wantKeys)
			}
			if left := te.storedDocs("app", "s"); len(left) != tc.wantLeft {
				t.Fatalf("%d documents left, want %d", len(left), tc.wantLeft)
			}
			// The engine's consistency check at cleanup finds any index
			// entry or counter the batch got wrong.
		})
	}
}

// The reaper hands the reading part of each batch to Batch.Prepare, which
// the engine may run at low priority, and that part holds neither the
// collection's write lock nor the engine's lock; the commit stays with the
// caller.
func TestReapPreparesThroughBudgetWithoutLocks(t *testing.T) {
	reg := newFakeRegistry()
	te := newTestEngine(t, func(o *Options) { o.Expiry = reg })
	now := te.clock.Now()
	te.mustCreateIndexes("app", "s", d("key", d("at", int32(1)), "name", "at_1", "expireAfterSeconds", int32(0)))
	for i := range 25 {
		te.mustInsert("app", "s", d("_id", int32(i), "at", date(now.Add(-time.Minute))))
	}
	src := reg.get("ttl_index:app.s.at_1").(*ttlSource)
	c, _, _ := src.current()
	prepares := 0
	prepare := func(f func()) {
		prepares++
		if !c.WriteMu.TryLock() {
			t.Error("the collection's write lock is held while preparing")
		} else {
			c.WriteMu.Unlock()
		}
		if !te.mu.TryLock() {
			t.Error("the engine's lock is held while preparing")
		} else {
			te.mu.Unlock()
		}
		before := len(te.storedDocs("app", "s"))
		f()
		if after := len(te.storedDocs("app", "s")); after != before {
			t.Errorf("preparing deleted %d documents; only the commit may", before-after)
		}
	}
	var r expiry.Reaped
	for more := true; more; {
		b, err := src.ReapBatch(t.Context(), now, expiry.Batch{Max: 10, Prepare: prepare})
		if err != nil {
			t.Fatal(err)
		}
		r.Items += b.Items
		more = b.More
	}
	if r.Items != 25 || prepares != 3 {
		t.Fatalf("reaped %d documents in %d preparations; want 25 in 3", r.Items, prepares)
	}
	if left := te.storedDocs("app", "s"); len(left) != 0 {
		t.Fatalf("%d documents left", len(left))
	}
}
