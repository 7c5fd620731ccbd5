package docdb

import (
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/expiry"
)

// TestReapRangeDeletions: the reaper deletes runs of adjacent due
// documents, and the span of TTL entries a batch took, with range
// deletions, and nothing else: documents between or beside the runs stay,
// a multikey document's later entries go by point, and afterwards the
// collection is consistent (every entry has its document and the reverse,
// counters equal what is stored).
func TestReapRangeDeletions(t *testing.T) {
	for _, tc := range []struct {
		name string
		// due and live say which _ids (0..n-1) are due and which never
		// expire; the rest do not exist.
		n          int
		due, live  func(i int) bool
		dir        int32
		batch      int
		wantRanges int // in the first batch: runs of >= minRangeRun plus the span
	}{
		{"one run", 60, func(i int) bool { return i < 50 }, func(i int) bool { return i >= 50 }, 1, 1000, 2},
		{"one run descending", 60, func(i int) bool { return i < 50 }, func(i int) bool { return i >= 50 }, -1, 1000, 2},
		{"interleaved", 60, func(i int) bool { return i%2 == 0 }, func(i int) bool { return i%2 == 1 }, 1, 1000, 1},
		{"two runs around a live one", 60, func(i int) bool { return i != 20 && i < 50 }, func(i int) bool { return i == 20 }, 1, 1000, 3},
		{"short run", 60, func(i int) bool { return i < 10 }, func(i int) bool { return i >= 10 }, 1, 1000, 1},
		{"batches", 100, func(i int) bool { return i < 90 }, func(i int) bool { return i >= 90 }, 1, 30, 2},
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
				switch {
				case tc.due(i):
					docs = append(docs, d("_id", int32(i), "at", date(now.Add(-time.Duration(tc.n-i)*time.Second)), "k", int32(i)))
				case tc.live(i):
					docs = append(docs, d("_id", int32(i), "at", "never", "k", int32(i)))
					wantLeft++
				}
			}
			// A due multikey document with a later date: its second entry
			// lies outside every span and must go by point.
			docs = append(docs, d("_id", "m", "at", bson.A{date(now.Add(-time.Hour)), date(now.Add(time.Hour))}))
			te.mustInsert("app", "s", docs...)

			c := te.lookupColl("app", "s")
			ix := te.Engine.indexByName(t, c, "at")
			src := reg.get("ttl_index:app.s.at").(*ttlSource)
			ids, _, _, sp, err := src.dueEntries(ix, now, tc.batch, nil)
			if err != nil {
				t.Fatal(err)
			}
			p, err := te.planReap(c, ix, now.UnixMilli(), ids, sp)
			if err != nil {
				t.Fatal(err)
			}
			if len(p.ranges) != tc.wantRanges {
				t.Errorf("first batch: %d range deletions, want %d", len(p.ranges), tc.wantRanges)
			}

			deleted := 0
			for {
				r, err := src.Reap(t.Context(), now, expiry.Budget{MaxItems: tc.batch, BatchSize: tc.batch})
				if err != nil {
					t.Fatal(err)
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

func TestKeyRangesCovers(t *testing.T) {
	r := keyRanges{{[]byte("b"), []byte("d")}, {[]byte("f"), []byte("f\x00")}}
	for _, tc := range []struct {
		key  string
		want bool
	}{
		{"a", false}, {"b", true}, {"c", true}, {"cz", true}, {"d", false},
		{"e", false}, {"f", true}, {"f\x00", false}, {"g", false},
	} {
		if got := r.covers([]byte(tc.key)); got != tc.want {
			t.Errorf("covers(%q) = %v, want %v", tc.key, got, tc.want)
		}
	}
	if (keyRanges{}).covers([]byte("a")) {
		t.Error("empty ranges cover a key")
	}
}

// indexByName returns c's index named name.
func (e *Engine) indexByName(t *testing.T, c *collection, name string) *indexMeta {
	t.Helper()
	for _, ix := range c.meta.indexes {
		if ix.name == name {
			return ix
		}
	}
	t.Fatalf("no index %q", name)
	return nil
}
