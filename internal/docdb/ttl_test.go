package docdb

import (
	"errors"
	"io"
	"sort"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/expiry"
)

// fakeRegistry records the sources the Engine registers and the wakes.
type fakeRegistry struct {
	mu      sync.Mutex
	sources map[string]expiry.Source
	wakes   []time.Time
}

func newFakeRegistry() *fakeRegistry { return &fakeRegistry{sources: map[string]expiry.Source{}} }

func (f *fakeRegistry) Register(s expiry.Source) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.sources[s.Name()] = s
	return nil
}

func (f *fakeRegistry) Unregister(name string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	_, ok := f.sources[name]
	delete(f.sources, name)
	return ok
}

func (f *fakeRegistry) Wake(due time.Time) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.wakes = append(f.wakes, due)
}

func (f *fakeRegistry) names() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for n := range f.sources {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

func (f *fakeRegistry) get(name string) expiry.Source {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.sources[name]
}

func date(t time.Time) bson.DateTime { return bson.NewDateTimeFromTime(t) }

// seedSessions creates the seed-000 collection: a TTL index of 60 s on
// "at" and documents covering every rule of which documents expire.
func seedSessions(te *testEngine) {
	now := te.clock.Now()
	te.mustCreateIndexes("app", "s", d("key", d("at", int32(1)), "name", "at_1", "expireAfterSeconds", int32(60)))
	te.mustInsert("app", "s",
		d("_id", "old", "at", date(now.Add(-2*time.Minute)), "k", int32(1)),                  // expired
		d("_id", "fresh", "at", date(now), "k", int32(2)),                                    // expires in 60 s
		d("_id", "text", "at", "2026-11-07", "k", int32(3)),                                  // not a Date: never
		d("_id", "array", "at", bson.A{date(now.Add(time.Hour)), date(now.Add(-time.Hour))}), // earliest counts: expired
		d("_id", "missing", "k", int32(5)),                                                   // no field: never
	)
}

func ids(te *testEngine, db, coll string, req FindRequest) string {
	te.t.Helper()
	req.Projection = d("_id", int32(1))
	return te.mustFind(db, coll, req)
}

func TestStrictVisibility(t *testing.T) {
	te := newTestEngine(t)
	seedSessions(te)
	ctx := t.Context()
	const live = `{ _id: "fresh" } { _id: "missing" } { _id: "text" }`
	t.Run("find", func(t *testing.T) {
		if got := ids(te, "app", "s", FindRequest{}); got != live {
			t.Fatalf("got %s", got)
		}
		if got := ids(te, "app", "s", FindRequest{Filter: d("_id", "old")}); got != "" {
			t.Fatalf("point read returned an expired document: %s", got)
		}
	})
	t.Run("count and distinct", func(t *testing.T) {
		n, err := te.Count(ctx, "app", "s", CountRequest{})
		if err != nil || n != 3 {
			t.Fatalf("count %d %v", n, err)
		}
		vals, _ := te.Distinct(ctx, "app", "s", DistinctRequest{Key: "k"})
		if fmtDoc(d("v", vals)) != "{ v: [ 2, 3, 5 ] }" {
			t.Fatalf("distinct %v", vals)
		}
	})
	t.Run("aggregate", func(t *testing.T) {
		cur, err := te.Aggregate(ctx, "app", "s", AggregateRequest{Pipeline: []bson.D{d("$group", d("_id", nil, "n", d("$sum", int32(1))))}})
		if err != nil {
			t.Fatal(err)
		}
		defer cur.Close()
		r, err := cur.Next(ctx)
		if err != nil || r.Lookup("n").Int32() != 3 {
			t.Fatalf("%v %v", r, err)
		}
	})
	t.Run("update and delete match only live documents", func(t *testing.T) {
		res := te.mustUpdate("app", "s", UpdateStatement{Filter: d(), Update: d("$set", d("seen", true)), Multi: true})
		if res.N != 3 {
			t.Fatalf("update matched %d", res.N)
		}
		dr, err := te.Delete(ctx, "app", "s", DeleteRequest{Statements: []DeleteStatement{{Filter: d("_id", d("$in", bson.A{"old", "array"}))}}})
		if err != nil || dr.N != 0 {
			t.Fatalf("delete %+v %v", dr, err)
		}
		fm, err := te.FindAndModify(ctx, "app", "s", FindAndModifyRequest{Query: d("_id", "old"), Remove: true})
		if err != nil || fm.N != 0 {
			t.Fatalf("findAndModify %+v %v", fm, err)
		}
	})
	t.Run("getMore does not return what expired since the find", func(t *testing.T) {
		cur, err := te.Find(ctx, "app", "s", FindRequest{Sort: d("_id", int32(-1))})
		if err != nil {
			t.Fatal(err)
		}
		defer cur.Close()
		first, err := cur.Next(ctx) // "text"
		if err != nil || first.Lookup("_id").StringValue() != "text" {
			t.Fatalf("%v %v", first, err)
		}
		te.clock.Advance(61 * time.Second) // "fresh" expires now
		var rest []string
		for {
			r, err := cur.Next(ctx)
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			rest = append(rest, r.Lookup("_id").StringValue())
		}
		if len(rest) != 1 || rest[0] != "missing" {
			t.Fatalf("getMore returned %v", rest)
		}
	})
	t.Run("an expired _id does not block an insert", func(t *testing.T) {
		te.mustInsert("app", "s", d("_id", "old", "at", date(te.clock.Now())))
		if got := ids(te, "app", "s", FindRequest{Filter: d("_id", "old")}); got != `{ _id: "old" }` {
			t.Fatalf("got %s", got)
		}
	})
}

func TestUniqueConflictWithExpiredDocument(t *testing.T) {
	te := newTestEngine(t)
	now := te.clock.Now()
	te.mustCreateIndexes("app", "codes",
		d("key", d("exp", int32(1)), "name", "exp_1", "expireAfterSeconds", int32(0)),
		d("key", d("code", int32(1)), "name", "code_1", "unique", true))
	te.mustInsert("app", "codes", d("_id", int32(1), "code", "ABC", "exp", date(now.Add(time.Minute))))
	res, _ := te.Insert(t.Context(), "app", "codes", InsertRequest{Documents: []bson.Raw{raw(t, d("_id", int32(2), "code", "ABC"))}})
	if len(res.WriteErrors) != 1 {
		t.Fatalf("live conflict not reported: %+v", res)
	}
	te.clock.Advance(2 * time.Minute)
	// The code is held only by an expired document: strict visibility
	// lets the insert through (and deletes the expired holder).
	te.mustInsert("app", "codes", d("_id", int32(2), "code", "ABC"))
	if got := te.storedDocs("app", "codes"); len(got) != 1 {
		t.Fatalf("stored %v", got)
	}
}

func TestLazyVisibility(t *testing.T) {
	te := newTestEngine(t, func(o *Options) { o.Visibility = VisibilityLazy })
	seedSessions(te)
	// MongoDB's behaviour: expired documents stay until the reaper runs.
	if n, _ := te.Count(t.Context(), "app", "s", CountRequest{}); n != 5 {
		t.Fatalf("count %d", n)
	}
}

func TestVisibilityRules(t *testing.T) {
	te := newTestEngine(t)
	ctx := t.Context()
	now := te.clock.Now()
	t.Run("partial TTL index expires only matching documents", func(t *testing.T) {
		te.mustCreateIndexes("app", "p", d("key", d("at", int32(1)), "name", "at_1", "expireAfterSeconds", int32(0),
			"partialFilterExpression", d("z", d("$exists", true))))
		te.mustInsert("app", "p", d("_id", int32(1), "at", date(now), "z", int32(2)), d("_id", int32(2), "at", date(now)))
		if got := ids(te, "app", "p", FindRequest{}); got != "{ _id: 2 }" {
			t.Fatalf("got %s", got)
		}
	})
	t.Run("a hidden TTL index still expires documents", func(t *testing.T) {
		te.mustCreateIndexes("app", "h", d("key", d("at", int32(1)), "name", "at_1", "expireAfterSeconds", int32(0), "hidden", true))
		te.mustInsert("app", "h", d("_id", int32(1), "at", date(now.Add(-time.Second))))
		if got := ids(te, "app", "h", FindRequest{}); got != "" {
			t.Fatalf("got %s", got)
		}
	})
	t.Run("collMod changes visibility at once", func(t *testing.T) {
		te.mustCreateIndexes("app", "m", d("key", d("at", int32(1)), "name", "at_1", "expireAfterSeconds", int32(3600)))
		te.mustInsert("app", "m", d("_id", int32(1), "at", date(now.Add(-10*time.Minute))))
		if got := ids(te, "app", "m", FindRequest{}); got != "{ _id: 1 }" {
			t.Fatalf("got %s", got)
		}
		reply, err := te.CollMod(ctx, "app", "m", modTTL("at_1", 60, false))
		if err != nil {
			t.Fatal(err)
		}
		if fmtDoc(reply) != "{ expireAfterSeconds_old: 3600, expireAfterSeconds_new: 60 }" {
			t.Fatalf("reply %s", fmtDoc(reply))
		}
		if got := ids(te, "app", "m", FindRequest{}); got != "" {
			t.Fatalf("got %s", got)
		}
	})
	t.Run("converting a normal index to TTL", func(t *testing.T) {
		te.mustCreateIndexes("app", "c", d("key", d("at", int32(1)), "name", "at_1"))
		te.mustInsert("app", "c", d("_id", int32(1), "at", date(now.Add(-time.Hour))))
		reply, err := te.CollMod(ctx, "app", "c", CollModRequest{Index: &CollModIndex{KeyPattern: d("at", int32(1)), ExpireAfterSeconds: ptr(int64(10))}})
		if err != nil {
			t.Fatal(err)
		}
		// Spec 1.9: only _new when the index was not a TTL index.
		if fmtDoc(reply) != "{ expireAfterSeconds_new: 10 }" {
			t.Fatalf("reply %s", fmtDoc(reply))
		}
		if _, ok := reply[0].Value.(int64); !ok {
			t.Fatalf("reply value is %T, want int64", reply[0].Value)
		}
		if got := ids(te, "app", "c", FindRequest{}); got != "" {
			t.Fatalf("got %s", got)
		}
	})
}

func TestTTLSources(t *testing.T) {
	reg := newFakeRegistry()
	te := newTestEngine(t, func(o *Options) { o.Expiry = reg })
	ctx := t.Context()
	now := te.clock.Now()
	te.mustCreateIndexes("app", "s",
		d("key", d("at", int32(-1)), "name", "at_-1", "expireAfterSeconds", int32(60)),
		d("key", d("k", int32(1)), "name", "k_1"))
	if got := reg.names(); len(got) != 1 || got[0] != "ttl_index:app.s.at_-1" {
		t.Fatalf("sources %v", got)
	}
	src := reg.get("ttl_index:app.s.at_-1")
	if _, ok, err := src.NextDue(ctx); ok || err != nil {
		t.Fatalf("empty source has a due time: %v %v", ok, err)
	}
	var docs []bson.D
	for i := 0; i < 10; i++ {
		docs = append(docs, d("_id", int32(i), "at", date(now.Add(time.Duration(i)*time.Minute)), "k", int32(i)))
	}
	docs = append(docs, d("_id", int32(100), "at", "not a date"), d("_id", int32(101), "at", bson.A{date(now.Add(-time.Hour)), date(now)}))
	te.mustInsert("app", "s", docs...)
	if len(reg.wakes) == 0 {
		t.Fatal("no wake after inserting expiring documents")
	}
	due, ok, err := src.NextDue(ctx)
	if err != nil || !ok || !due.Equal(now.Add(-time.Hour+time.Minute)) {
		t.Fatalf("next due %v %v %v", due, ok, err)
	}
	counter := src.(expiry.Counter)
	at := now.Add(3*time.Minute + time.Second) // docs 0, 1, 2 and 101 are due
	n, oldest, newest, err := counter.CountDue(ctx, at)
	if err != nil || n != 4 || !oldest.Equal(due) || !newest.Equal(now.Add(3*time.Minute)) {
		t.Fatalf("countDue %d %v %v %v", n, oldest, newest, err)
	}
	r, err := expiry.Drain(ctx, src, at, 3, 2)
	// doc 101 has two Date entries and a null k entry: 4 keys; docs 0 and 1 have 3.
	if err != nil || r.Items != 3 || !r.More || r.Keys != 10 || len(r.Due) != 3 {
		t.Fatalf("reap %+v %v", r, err)
	}
	r, err = expiry.Drain(ctx, src, at, 0, 10)
	if err != nil || r.Items != 1 || r.More {
		t.Fatalf("second reap %+v %v", r, err)
	}
	if got := te.storedDocs("app", "s"); len(got) != 8 {
		t.Fatalf("%d documents left", len(got))
	}
	t.Run("a document whose date moved is left alone", func(t *testing.T) {
		te.mustUpdate("app", "s", UpdateStatement{Filter: d("_id", int32(3)), Update: d("$set", d("at", date(now.Add(time.Hour))))})
		r, err := expiry.Drain(ctx, src, now.Add(5*time.Minute), 0, 10)
		if err != nil || r.Items != 1 { // doc 4 only
			t.Fatalf("reap %+v %v", r, err)
		}
	})
	t.Run("rename moves the source, drop removes it", func(t *testing.T) {
		if err := te.RenameCollection(ctx, "app", "s", "app", "s2", false); err != nil {
			t.Fatal(err)
		}
		if got := reg.names(); len(got) != 1 || got[0] != "ttl_index:app.s2.at_-1" {
			t.Fatalf("sources %v", got)
		}
		src := reg.get("ttl_index:app.s2.at_-1")
		r, err := expiry.Drain(ctx, src, now.Add(6*time.Minute), 0, 0)
		if err != nil || r.Items != 1 {
			t.Fatalf("reap after rename %+v %v", r, err)
		}
		te.reopen()
		if got := reg.names(); len(got) != 1 {
			t.Fatalf("sources after reopen %v", got)
		}
		if _, err := te.DropIndexes(ctx, "app", "s2", DropIndexesRequest{Names: []string{"at_-1"}}); err != nil {
			t.Fatal(err)
		}
		if got := reg.names(); len(got) != 0 {
			t.Fatalf("sources after drop %v", got)
		}
	})
}

func TestClusteredCollectionTTL(t *testing.T) {
	reg := newFakeRegistry()
	te := newTestEngine(t, func(o *Options) { o.Expiry = reg })
	ctx := t.Context()
	now := te.clock.Now()
	if err := te.CreateCollection(ctx, "app", "events", clusteredTTL(60)); err != nil {
		t.Fatal(err)
	}
	old := bson.NewObjectIDFromTimestamp(now.Add(-24 * time.Hour))
	te.mustInsert("app", "events",
		d("_id", date(now.Add(-2*time.Minute)), "v", int32(1)), // Date _id past its TTL
		d("_id", date(now), "v", int32(2)),                     // Date _id, live
		d("_id", old, "v", int32(3)),                           // ObjectId _ids never expire, as in MongoDB
	)
	if got := te.mustFind("app", "events", FindRequest{Projection: d("v", int32(1), "_id", int32(0))}); got != "{ v: 3 } { v: 2 }" { // ObjectId sorts before Date
		t.Fatalf("got %s", got)
	}
	if got := te.indexList("app", "events"); got != `{ v: 2, key: { _id: 1 }, name: "_id_", unique: true, clustered: true }` {
		t.Fatalf("listIndexes %s", got)
	}
	src := reg.get("ttl_index:app.events._id_")
	if src == nil {
		t.Fatalf("sources %v", reg.names())
	}
	due, ok, err := src.NextDue(ctx)
	if err != nil || !ok || !due.Equal(now.Add(-time.Minute)) {
		t.Fatalf("next due %v %v %v", due, ok, err)
	}
	r, err := expiry.Drain(ctx, src, now, 0, 10)
	if err != nil || r.Items != 1 {
		t.Fatalf("reap %+v %v", r, err)
	}
	// collMod "off" removes the collection TTL and its source.
	if _, err := te.CollMod(ctx, "app", "events", CollModRequest{ExpireAfterSeconds: &CollectionExpiry{Off: true}}); err != nil {
		t.Fatal(err)
	}
	if len(reg.names()) != 0 {
		t.Fatalf("sources %v", reg.names())
	}
	te.clock.Advance(time.Hour)
	if n, _ := te.Count(ctx, "app", "events", CountRequest{}); n != 2 {
		t.Fatalf("count %d", n)
	}
}
