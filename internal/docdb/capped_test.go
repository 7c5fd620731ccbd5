package docdb

import (
	"context"
	"errors"
	"io"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/catalog"
	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
	"github.com/mayfly/mayfly/internal/storage"
)

// xs returns the x fields of the documents a find returns, in order.
func (te *testEngine) xs(coll string, req FindRequest) []int32 {
	te.t.Helper()
	cur, err := te.Find(te.t.Context(), "app", coll, req)
	if err != nil {
		te.t.Fatal(err)
	}
	defer cur.Close()
	var out []int32
	for {
		r, err := cur.Next(te.t.Context())
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			te.t.Fatal(err)
		}
		out = append(out, r.Lookup("x").Int32())
	}
}

func createCapped(t *testing.T, te *testEngine, coll string, size, max int64) {
	t.Helper()
	if err := te.CreateCollection(t.Context(), "app", coll, CreateCollectionRequest{Capped: &CappedOptions{Size: size, Max: max}}); err != nil {
		t.Fatal(err)
	}
}

func equalInts(a, b []int32) bool {
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

// naturalEntries counts the natural-order entries of a capped collection.
func (te *testEngine) naturalEntries(coll string) int {
	te.t.Helper()
	c := te.lookupColl("app", coll)
	p := catalog.NaturalPrefix(c.Meta.ID)
	it, err := te.store.NewIter(p, storage.PrefixEnd(p))
	if err != nil {
		te.t.Fatal(err)
	}
	defer it.Close()
	n := 0
	for ok := it.First(); ok; ok = it.Next() {
		n++
	}
	return n
}

func TestCappedKeepsTheNewestInInsertionOrder(t *testing.T) {
	te := newTestEngine(t)
	createCapped(t, te, "log", 4096, 5)
	if _, err := te.CreateIndexes(t.Context(), "app", "log", indexSpecs(d("key", d("x", int32(1)), "name", "x_1"))); err != nil {
		t.Fatal(err)
	}
	// _id descending while x ascends: insertion order is not _id order.
	for i := int32(0); i < 12; i++ {
		te.mustInsert("app", "log", d("_id", 100-i, "x", i))
	}
	want := []int32{7, 8, 9, 10, 11}
	if got := te.xs("log", FindRequest{}); !equalInts(got, want) {
		t.Fatalf("collection scan: got %v, want %v", got, want)
	}
	if got := te.xs("log", FindRequest{Sort: d("$natural", int32(-1))}); !equalInts(got, []int32{11, 10, 9, 8, 7}) {
		t.Fatalf("$natural: -1: got %v", got)
	}
	if got := te.xs("log", FindRequest{Hint: d("$natural", int32(1))}); !equalInts(got, want) {
		t.Fatalf("hint $natural: 1: got %v", got)
	}
	// The index has exactly the live documents' entries.
	if got := te.xs("log", FindRequest{Filter: d("x", d("$gte", int32(0))), Hint: "x_1"}); !equalInts(got, want) {
		t.Fatalf("x_1 scan: got %v, want %v", got, want)
	}
	st, err := te.CollStats(t.Context(), "app", "log")
	if err != nil {
		t.Fatal(err)
	}
	if st.Count != 5 {
		t.Fatalf("count %d, want 5", st.Count)
	}
	if n := te.naturalEntries("log"); n != 5 {
		t.Fatalf("%d natural-order entries, want 5", n)
	}
	// The sequence survives a restart: new documents still go last.
	te.reopen()
	te.mustInsert("app", "log", d("_id", 1, "x", int32(12)))
	if got := te.xs("log", FindRequest{}); !equalInts(got, []int32{8, 9, 10, 11, 12}) {
		t.Fatalf("after reopen: got %v", got)
	}
}

func TestCappedSizeBound(t *testing.T) {
	te := newTestEngine(t)
	createCapped(t, te, "log", 1000, 0) // rounded up to 1024
	pad := string(make([]byte, 200))
	for i := int32(0); i < 20; i++ {
		te.mustInsert("app", "log", d("x", i, "pad", pad))
	}
	st, err := te.CollStats(t.Context(), "app", "log")
	if err != nil {
		t.Fatal(err)
	}
	if st.Size > 1024 {
		t.Fatalf("size %d over the bound 1024", st.Size)
	}
	got := te.xs("log", FindRequest{})
	if int64(len(got)) != st.Count || got[len(got)-1] != 19 {
		t.Fatalf("documents %v with count %d", got, st.Count)
	}
	for i := 1; i < len(got); i++ {
		if got[i] != got[i-1]+1 {
			t.Fatalf("not the newest in order: %v", got)
		}
	}
	// One document larger than the whole bound is refused.
	res, err := te.Insert(t.Context(), "app", "log", InsertRequest{Documents: []bson.Raw{raw(t, d("big", string(make([]byte, 2000))))}, Ordered: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.WriteErrors) != 1 {
		t.Fatalf("a document over the bound was inserted: %+v", res)
	}
	wantCode(t, res.WriteErrors[0].Err, mongoerr.BSONObjectTooLarge, "object to insert exceeds cappedMaxSize")
}

func TestCappedDeleteAndUpdateKeepOrder(t *testing.T) {
	te := newTestEngine(t)
	createCapped(t, te, "log", 1<<20, 3)
	te.mustInsert("app", "log", d("_id", 1, "x", int32(1)), d("_id", 2, "x", int32(2)), d("_id", 3, "x", int32(3)))
	res, err := te.Delete(t.Context(), "app", "log", DeleteRequest{Statements: []DeleteStatement{{Filter: d("_id", 2), Limit: 1}}})
	if err != nil || res.N != 1 {
		t.Fatalf("delete: %v %+v", err, res)
	}
	te.mustInsert("app", "log", d("_id", 2, "x", int32(4)), d("_id", 5, "x", int32(5)))
	if got := te.xs("log", FindRequest{}); !equalInts(got, []int32{3, 4, 5}) {
		t.Fatalf("got %v, want [3 4 5]", got)
	}
	if n := te.naturalEntries("log"); n != 3 {
		t.Fatalf("%d natural-order entries, want 3", n)
	}
}

func TestTailableCursor(t *testing.T) {
	te := newTestEngine(t)
	ctx := t.Context()
	createCapped(t, te, "log", 1<<20, 3)
	missing, err := te.FindTailable(ctx, "app", "missing", FindRequest{}, true)
	if err != nil || !missing.Empty() {
		t.Fatalf("a missing collection gives an empty cursor: %v", err)
	}
	te.mustInsert("app", "c", d("x", int32(0)))
	_, err = te.FindTailable(ctx, "app", "c", FindRequest{}, false)
	wantCode(t, err, mongoerr.BadValue, "error processing query: ns=app.cTree: $and\nSort: {}\nProj: {}\n tailable cursor requested on non capped collection")

	te.mustInsert("app", "log", d("x", int32(1)))
	cur, err := te.FindTailable(ctx, "app", "log", FindRequest{Filter: d("x", d("$ne", int32(2)))}, true)
	if err != nil {
		t.Fatal(err)
	}
	defer cur.Close()
	next := func() (int32, error) {
		r, err := cur.Next(ctx)
		if err != nil {
			return 0, err
		}
		return r.Lookup("x").Int32(), nil
	}
	if x, err := next(); err != nil || x != 1 {
		t.Fatalf("first: %d %v", x, err)
	}
	if _, err := next(); !errors.Is(err, io.EOF) {
		t.Fatalf("at the end: %v, want EOF", err)
	}
	// Wait returns once an insert commits.
	done := make(chan struct{})
	go func() {
		defer close(done)
		cur.Wait(ctx, time.Minute)
	}()
	te.mustInsert("app", "log", d("x", int32(2)), d("x", int32(3)))
	<-done
	if x, err := next(); err != nil || x != 3 {
		t.Fatalf("after the insert: %d %v (x: 2 does not match)", x, err)
	}
	if _, err := next(); !errors.Is(err, io.EOF) {
		t.Fatalf("at the end again: %v, want EOF", err)
	}
	// Capping removes the position the cursor stands on.
	te.mustInsert("app", "log", d("x", int32(4)), d("x", int32(5)), d("x", int32(6)))
	_, err = next()
	wantCode(t, err, mongoerr.CappedPositionLost, "CollectionScan died due to position in capped collection being deleted. Last seen record id: RecordId(3)")
}

func TestTailableWaitTimesOut(t *testing.T) {
	te := newTestEngine(t)
	createCapped(t, te, "log", 4096, 0)
	te.mustInsert("app", "log", d("x", int32(1)))
	cur, err := te.FindTailable(t.Context(), "app", "log", FindRequest{}, true)
	if err != nil {
		t.Fatal(err)
	}
	defer cur.Close()
	for {
		if _, err := cur.Next(t.Context()); err != nil {
			break
		}
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	cur.Wait(ctx, time.Hour) // returns at once: the context is done
}

func TestCappedRefusesTTLIndexes(t *testing.T) {
	te := newTestEngine(t)
	createCapped(t, te, "log", 4096, 0)
	_, err := te.CreateIndexes(t.Context(), "app", "log", indexSpecs(d("key", d("at", int32(1)), "name", "at_1", "expireAfterSeconds", int32(10))))
	wantCode(t, err, mongoerr.CannotCreateIndex, "Cannot create TTL index on a capped collection")
	if _, err := te.CreateIndexes(t.Context(), "app", "log", indexSpecs(d("key", d("at", int32(1)), "name", "at_1"))); err != nil {
		t.Fatal(err)
	}
	_, err = te.CollMod(t.Context(), "app", "log", modTTL("at_1", 10, false))
	wantCode(t, err, mongoerr.InvalidOptions, "TTL indexes are not supported for capped collections.")
}

func TestCollModCappedBound(t *testing.T) {
	te := newTestEngine(t)
	createCapped(t, te, "log", 1<<20, 0)
	for i := int32(0); i < 6; i++ {
		te.mustInsert("app", "log", d("x", i))
	}
	// The new bound applies from the next insert.
	if _, err := te.CollMod(t.Context(), "app", "log", CollModRequest{CappedMax: ptr(int64(2))}); err != nil {
		t.Fatal(err)
	}
	if got := te.xs("log", FindRequest{}); len(got) != 6 {
		t.Fatalf("collMod removed documents: %v", got)
	}
	te.mustInsert("app", "log", d("x", int32(6)))
	if got := te.xs("log", FindRequest{}); !equalInts(got, []int32{5, 6}) {
		t.Fatalf("got %v, want [5 6]", got)
	}
	if _, err := te.CollMod(t.Context(), "app", "log", CollModRequest{CappedMax: ptr(int64(0)), CappedSize: ptr(int64(1000))}); err != nil {
		t.Fatal(err)
	}
	st, err := te.CollStats(t.Context(), "app", "log")
	if err != nil {
		t.Fatal(err)
	}
	if st.Max != catalog.CappedMaxDocsCeiling || st.MaxSize != 1024 {
		t.Fatalf("bound after collMod: max %d maxSize %d", st.Max, st.MaxSize)
	}
	te.mustInsert("app", "c", d("x", int32(0)))
	_, err = te.CollMod(t.Context(), "app", "c", CollModRequest{CappedSize: ptr(int64(5000))})
	wantCode(t, err, mongoerr.InvalidOptions, "Collection must be capped.")
}

func TestCloneAndConvertToCapped(t *testing.T) {
	te := newTestEngine(t)
	ctx := t.Context()
	for i := int32(0); i < 10; i++ {
		te.mustInsert("app", "src", d("_id", i, "x", i, "pad", string(make([]byte, 100))))
	}
	if _, err := te.CreateIndexes(ctx, "app", "src", indexSpecs(d("key", d("x", int32(1)), "name", "x_1"))); err != nil {
		t.Fatal(err)
	}
	if err := te.CloneCollectionAsCapped(ctx, "app", "src", "dst", 500); err != nil {
		t.Fatal(err)
	}
	got := te.xs("dst", FindRequest{})
	if len(got) == 0 || len(got) >= 10 || got[len(got)-1] != 9 {
		t.Fatalf("clone kept %v", got)
	}
	st, err := te.CollStats(ctx, "app", "dst")
	if err != nil {
		t.Fatal(err)
	}
	if !st.Capped || st.MaxSize != 512 || st.Size > 512 || st.NIndexes != 1 {
		t.Fatalf("clone stats %+v", st)
	}
	err = te.CloneCollectionAsCapped(ctx, "app", "src", "dst", 500)
	wantCode(t, err, mongoerr.NamespaceExists, "cloneCollectionAsCapped failed - destination collection app.dst already exists. source collection: app.src")
	if err := te.ConvertToCapped(ctx, "app", "src", 1<<20); err != nil {
		t.Fatal(err)
	}
	if got := te.xs("src", FindRequest{}); len(got) != 10 {
		t.Fatalf("converted: %v", got)
	}
	names := map[string]bool{}
	infos, err := te.ListCollections(ctx, "app", nil, true)
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range infos {
		n, _ := catalog.FieldOf(in, "name")
		names[n.(string)] = true
	}
	if len(names) != 2 || !names["src"] || !names["dst"] {
		t.Fatalf("collections after convertToCapped: %v", names)
	}
	err = te.ConvertToCapped(ctx, "app", "none", 1000)
	wantCode(t, err, mongoerr.NamespaceNotFound, "source collection app.none does not exist")
}
