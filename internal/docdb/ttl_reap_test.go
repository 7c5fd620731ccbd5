package docdb

import (
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/expiry"
)

// Ensure that the batches of one pass (Reap calls with the same now) go on
// where the previous one stopped, in both index directions, with the
// budget's More and the deleted keys right; and that a document written
// behind that point during the pass is reaped by the next pass.
func TestReapResumesWithinAPass(t *testing.T) {
	for _, dir := range []int32{1, -1} {
		t.Run(map[int32]string{1: "ascending", -1: "descending"}[dir], func(t *testing.T) {
			reg := newFakeRegistry()
			te := newTestEngine(t, func(o *Options) { o.Expiry = reg })
			ctx := t.Context()
			now := te.clock.Now()
			name := map[int32]string{1: "at_1", -1: "at_-1"}[dir]
			te.mustCreateIndexes("app", "s",
				d("key", d("at", dir), "name", name, "expireAfterSeconds", int32(0)),
				d("key", d("k", int32(1)), "name", "k_1"))
			var docs []bson.D
			for i := range 10 {
				docs = append(docs, d("_id", int32(i), "at", date(now.Add(-time.Duration(10-i)*time.Minute)), "k", int32(i)))
			}
			// A multikey document whose two dates straddle the others.
			docs = append(docs, d("_id", int32(10), "at", bson.A{date(now.Add(-5*time.Minute - time.Second)), date(now.Add(-time.Hour))}))
			te.mustInsert("app", "s", docs...)
			src := reg.get("ttl_index:app.s." + name)

			var got []int
			var keys int
			for i := 0; ; i++ {
				r, err := expiry.Drain(ctx, src, now, 3, 3)
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, r.Items)
				keys += r.Keys
				if wantMore := i < 3; r.More != wantMore {
					t.Fatalf("batch %d: More = %v", i, r.More)
				}
				if !r.More {
					break
				}
				if i == 0 {
					// Written behind the point where the next batch goes on.
					te.mustInsert("app", "s", d("_id", "late", "at", date(now.Add(-2*time.Hour))))
				}
			}
			if want := []int{3, 3, 3, 2}; !sameInts(got, want) {
				t.Fatalf("batches %v, want %v", got, want)
			}
			// 10 documents with _id, at and k keys, the multikey one with
			// _id, two at keys and a null k key.
			if keys != 10*3+4 {
				t.Fatalf("keys %d", keys)
			}
			if left := te.storedDocs("app", "s"); len(left) != 1 {
				t.Fatalf("%d documents stored, want the late one", len(left))
			}
			due, ok, err := src.NextDue(ctx)
			if err != nil || !ok || !due.Equal(now.Add(-2*time.Hour)) {
				t.Fatalf("next due %v %v %v", due, ok, err)
			}
			r, err := expiry.Drain(ctx, src, now.Add(time.Second), 3, 3)
			if err != nil || r.Items != 1 || r.More {
				t.Fatalf("next pass %+v %v", r, err)
			}
			if left := te.storedDocs("app", "s"); len(left) != 0 {
				t.Fatalf("%d documents left", len(left))
			}
		})
	}
}

func sameInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
