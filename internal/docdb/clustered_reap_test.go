package docdb

import (
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"pgregory.net/rapid"

	"github.com/mayfly/mayfly/internal/expiry"
)

// TestClusteredReapBySpan checks that a clustered collection's expired
// documents go as one range deletion when only the clustered index holds
// them, and document by document otherwise, with the same counts.
func TestClusteredReapBySpan(t *testing.T) {
	cases := []struct {
		name      string
		secondary bool // a secondary index on v
		wantSpans int
	}{
		{"only the clustered index: one span", false, 1},
		{"a secondary index: per document", true, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			reg := newFakeRegistry()
			te := newTestEngine(t, func(o *Options) { o.Expiry = reg })
			ctx := t.Context()
			now := te.clock.Now()
			if err := te.CreateCollection(ctx, "app", "c", clusteredTTL(60)); err != nil {
				t.Fatal(err)
			}
			if tc.secondary {
				te.mustCreateIndexes("app", "c", d("key", d("v", int32(1)), "name", "v_1"))
			}
			var docs []bson.D
			for i := range 500 {
				// 300 Date _ids past their TTL, 200 still live.
				docs = append(docs, d("_id", date(now.Add(time.Duration(i-360)*time.Second)), "v", int32(i)))
			}
			docs = append(docs, d("_id", bson.NewObjectIDFromTimestamp(now.Add(-48*time.Hour)), "v", int32(-1)))
			te.mustInsert("app", "c", docs...)
			src := reg.get("ttl_index:app.c._id_")
			r, err := expiry.Drain(ctx, src, now, 0, 100)
			if err != nil {
				t.Fatal(err)
			}
			// Due at or before now: the dates up to now - 60 s, i = 0..300.
			if r.Items != 301 || len(r.Due) != 301 || len(r.Spans) != tc.wantSpans {
				t.Fatalf("reaped %d items, %d dues, %d spans", r.Items, len(r.Due), len(r.Spans))
			}
			for _, due := range r.Due {
				if due > now.UnixMilli() {
					t.Fatalf("deleted a document due at %v, after %v", time.UnixMilli(due), now)
				}
			}
			st, err := te.CollStats(ctx, "app", "c")
			if err != nil || st.Count != 200 {
				t.Fatalf("collStats count %d %v", st.Count, err)
			}
			if n := len(te.storedDocs("app", "c")); n != 200 {
				t.Fatalf("%d documents stored", n)
			}
			if err := te.Check(ctx); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestClusteredSpanCountsLateWrites checks that a document written into the
// span between the batch and its deletion is counted with it.
func TestClusteredSpanCountsLateWrites(t *testing.T) {
	reg := newFakeRegistry()
	te := newTestEngine(t, func(o *Options) { o.Expiry = reg })
	ctx := t.Context()
	now := te.clock.Now()
	if err := te.CreateCollection(ctx, "app", "c", clusteredTTL(0)); err != nil {
		t.Fatal(err)
	}
	te.mustInsert("app", "c", d("_id", date(now.Add(-time.Hour))))
	src := reg.get("ttl_index:app.c._id_").(*ttlSource)
	r, err := src.ReapBatch(ctx, now, expiry.Batch{Max: 10})
	if err != nil || len(r.Spans) != 1 {
		t.Fatalf("batch %+v %v", r, err)
	}
	te.mustInsert("app", "c", d("_id", date(now.Add(-time.Minute))), d("_id", date(now.Add(time.Minute))))
	// The engine deletes the span; Drain does the same through its batches.
	sp := r.Spans[0]
	b := te.store.NewBatch()
	defer b.Close()
	apply, err := sp.Stage(b, &sp)
	if err != nil || len(sp.Due) != 2 || sp.Keys != 2 {
		t.Fatalf("staged %d dues %d keys %v", len(sp.Due), sp.Keys, err)
	}
	if err := b.DeleteRange(sp.Start, sp.End); err != nil {
		t.Fatal(err)
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	apply()
	if st, _ := te.CollStats(ctx, "app", "c"); st.Count != 1 {
		t.Fatalf("count %d", st.Count)
	}
}

// TestClusteredExpiryModel is a property test: under random inserts (Date
// and ObjectId _ids), TTL changes and clock moves, the visible documents of
// a clustered collection are those a simple model keeps, reaping deletes
// exactly the due ones, and the store stays consistent.
func TestClusteredExpiryModel(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		reg := newFakeRegistry()
		te := newTestEngine(t, func(o *Options) { o.Expiry = reg })
		ctx := t.Context()
		start := te.clock.Now()
		ttl := int64(rapid.IntRange(0, 600).Draw(rt, "ttl"))
		if err := te.CreateCollection(ctx, "app", "c", clusteredTTL(ttl)); err != nil {
			rt.Fatal(err)
		}
		// model: _id (as its string) -> its date in ms, or -1 for an ObjectId.
		model := map[string]int64{}
		seq := 0
		visible := func(now time.Time) []string {
			var out []string
			for id, ms := range model {
				if ttl < 0 || ms < 0 || ms+ttl*1000 > now.UnixMilli() {
					out = append(out, id)
				}
			}
			sort.Strings(out)
			return out
		}
		steps := rapid.IntRange(1, 30).Draw(rt, "steps")
		for range steps {
			now := te.clock.Now()
			switch rapid.IntRange(0, 4).Draw(rt, "op") {
			case 0: // insert dates around now
				n := rapid.IntRange(1, 20).Draw(rt, "n")
				var docs []bson.D
				for range n {
					seq++
					at := now.Add(time.Duration(rapid.IntRange(-1200, 1200).Draw(rt, "offset")) * time.Second).Add(time.Duration(seq) * time.Microsecond * 1000)
					id := date(at)
					key := fmt.Sprint(int64(id))
					if _, dup := model[key]; dup {
						continue
					}
					model[key] = int64(id)
					docs = append(docs, d("_id", id, "pad", strings.Repeat("x", rapid.IntRange(0, 50).Draw(rt, "pad"))))
				}
				if len(docs) > 0 {
					te.mustInsert("app", "c", docs...)
				}
			case 1: // an ObjectId with an old timestamp never expires
				oid := bson.NewObjectIDFromTimestamp(start.Add(-time.Duration(rapid.IntRange(1, 1000).Draw(rt, "age")) * time.Hour))
				model[oid.Hex()] = -1
				te.mustInsert("app", "c", d("_id", oid))
			case 2: // change the TTL, or turn it off
				if rapid.Bool().Draw(rt, "off") {
					ttl = -1
					if _, err := te.CollMod(ctx, "app", "c", CollModRequest{ExpireAfterSeconds: &CollectionExpiry{Off: true}}); err != nil {
						rt.Fatal(err)
					}
				} else {
					ttl = int64(rapid.IntRange(0, 900).Draw(rt, "newTTL"))
					if _, err := te.CollMod(ctx, "app", "c", CollModRequest{ExpireAfterSeconds: &CollectionExpiry{Seconds: ttl}}); err != nil {
						rt.Fatal(err)
					}
				}
			case 3:
				te.clock.Advance(time.Duration(rapid.IntRange(1, 900).Draw(rt, "advance")) * time.Second)
			case 4: // reap what is due
				if src := reg.get("ttl_index:app.c._id_"); src != nil {
					before := len(model)
					if _, err := expiry.Drain(ctx, src, now, 0, rapid.IntRange(1, 50).Draw(rt, "batch")); err != nil {
						rt.Fatal(err)
					}
					for id, ms := range model {
						if ms >= 0 && ms+ttl*1000 <= now.UnixMilli() {
							delete(model, id)
						}
					}
					if n := len(te.storedDocs("app", "c")); n != len(model) {
						rt.Fatalf("%d stored after reaping, model has %d (had %d)", n, len(model), before)
					}
				}
			}
			got := visibleIDs(rt, te)
			want := visible(te.clock.Now())
			if strings.Join(got, ",") != strings.Join(want, ",") {
				rt.Fatalf("visible\n  %v\nmodel\n  %v", got, want)
			}
			if err := te.Check(ctx); err != nil {
				rt.Fatal(err)
			}
		}
	})
}

// visibleIDs lists the _ids find returns from app.c as the model names
// them, sorted.
func visibleIDs(rt *rapid.T, te *testEngine) []string {
	cur, err := te.Find(te.t.Context(), "app", "c", FindRequest{})
	if err != nil {
		rt.Fatal(err)
	}
	defer cur.Close()
	var out []string
	for {
		r, err := cur.Next(te.t.Context())
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			rt.Fatal(err)
		}
		switch id := r.Lookup("_id"); id.Type {
		case bson.TypeDateTime:
			out = append(out, fmt.Sprint(id.DateTime()))
		case bson.TypeObjectID:
			out = append(out, id.ObjectID().Hex())
		default:
			rt.Fatalf("_id of type %v", id.Type)
		}
	}
	sort.Strings(out)
	return out
}
