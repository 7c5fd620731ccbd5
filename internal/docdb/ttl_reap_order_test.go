package docdb

import (
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/expiry"
)

// TestReapAmongLiveDocuments: the reaper reads each batch's documents in
// key order and deletes exactly the due ones, whatever lies between or
// beside them: live documents stay, a multikey document's later entries
// go too, and afterwards the collection is consistent (every entry has its
// document and the reverse, counters equal what is stored).
func TestReapAmongLiveDocuments(t *testing.T) {
	for _, tc := range []struct {
		name string
		// due and live say which _ids (0..n-1) are due and which never
		// expire; the rest do not exist.
		n         int
		due, live func(i int) bool
		dir       int32
		batch     int
	}{
		{"one run", 60, func(i int) bool { return i < 50 }, func(i int) bool { return i >= 50 }, 1, 1000},
		{"one run descending", 60, func(i int) bool { return i < 50 }, func(i int) bool { return i >= 50 }, -1, 1000},
		{"interleaved", 60, func(i int) bool { return i%2 == 0 }, func(i int) bool { return i%2 == 1 }, 1, 1000},
		{"interleaved descending in batches", 60, func(i int) bool { return i%2 == 0 }, func(i int) bool { return i%2 == 1 }, -1, 7},
		{"two runs around a live one", 60, func(i int) bool { return i != 20 && i < 50 }, func(i int) bool { return i == 20 }, 1, 1000},
		{"batches", 100, func(i int) bool { return i < 90 }, func(i int) bool { return i >= 90 }, 1, 30},
	} {
		t.Run(tc.name, func(t *testing.T) {
			reg := newFakeRegistry()
			te := newTestEngine(t, func(o *Options) { o.Expiry = reg })
			now := te.clock.Now()
			te.mustCreateIndexes("app", "s",
				d("key", d("at", tc.dir), "name", "at", "expireAfterSeconds", int32(0)),
				d("key", d("k", int32(1)), "name", "k_1"))
			var docs []bson.D
			wantLeft := 0
			for i := range tc.n {
				// Dates descend as _ids rise, so entry order is not key order.
				switch {
				case tc.due(i):
					docs = append(docs, d("_id", int32(i), "at", date(now.Add(-time.Duration(tc.n-i)*time.Second)), "k", int32(i)))
				case tc.live(i):
					docs = append(docs, d("_id", int32(i), "at", "never", "k", int32(i)))
					wantLeft++
				}
			}
			// A due multikey document with a later date, whose second entry
			// is not due.
			docs = append(docs, d("_id", "m", "at", bson.A{date(now.Add(-time.Hour)), date(now.Add(time.Hour))}))
			te.mustInsert("app", "s", docs...)
			src := reg.get("ttl_index:app.s.at")

			deleted := 0
			for {
				r, err := expiry.Drain(t.Context(), src, now, tc.batch, tc.batch)
				if err != nil {
					t.Fatal(err)
				}
				if len(r.Due) != r.Items {
					t.Fatalf("%d due times for %d items", len(r.Due), r.Items)
				}
				deleted += r.Items
				if !r.More {
					break
				}
			}
			if want := len(docs) - wantLeft; deleted != want {
				t.Errorf("deleted %d, want %d", deleted, want)
			}
			if left := te.storedDocs("app", "s"); len(left) != wantLeft {
				t.Errorf("%d documents stored, want %d", len(left), wantLeft)
			}
			if err := te.check(t.Context()); err != nil {
				t.Errorf("inconsistent after reaping: %v", err)
			}
		})
	}
}
