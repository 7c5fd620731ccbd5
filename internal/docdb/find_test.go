package docdb

import (
	"errors"
	"io"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
	"github.com/mayfly/mayfly/internal/docdb/plan"
)

// findAll runs a find and returns the documents as strings.
func (te *testEngine) findAll(db, coll string, req FindRequest) ([]string, error) {
	te.t.Helper()
	cur, err := te.Find(te.t.Context(), db, coll, req)
	if err != nil {
		return nil, err
	}
	defer cur.Close()
	var out []string
	for {
		r, err := cur.Next(te.t.Context())
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		var doc bson.D
		if err := bson.Unmarshal(r, &doc); err != nil {
			te.t.Fatal(err)
		}
		out = append(out, fmtDoc(doc))
	}
}

func (te *testEngine) mustFind(db, coll string, req FindRequest) string {
	te.t.Helper()
	out, err := te.findAll(db, coll, req)
	if err != nil {
		te.t.Fatal(err)
	}
	return strings.Join(out, " ")
}

// planOf returns the plan the planner picks for a find.
func (te *testEngine) planOf(db, coll string, req FindRequest) string {
	te.t.Helper()
	q, err := te.parseFind(req)
	if err != nil {
		te.t.Fatal(err)
	}
	view := te.openRead(db, coll)
	defer view.close()
	p, err := plan.Choose(view.meta, plan.Request{Filter: q.filter, Sort: q.sort, Hint: q.hint, Natural: q.natural})
	if err != nil {
		te.t.Fatal(err)
	}
	return p.String()
}

func seedPeople(te *testEngine) {
	te.mustInsert("db", "p",
		d("_id", int32(1), "name", "ann", "age", int32(30), "tags", bson.A{"a", "b"}),
		d("_id", int32(2), "name", "bob", "age", int32(25), "tags", bson.A{"b"}),
		d("_id", int32(3), "name", "cy", "age", int32(35)),
		d("_id", int32(4), "name", "dee", "age", 30.0, "tags", bson.A{}),
		d("_id", int32(5), "name", "eve"),
	)
	te.mustCreateIndexes("db", "p",
		d("key", d("age", int32(1)), "name", "age_1"),
		d("key", d("tags", int32(1)), "name", "tags_1"),
		d("key", d("name", int32(1), "age", int32(-1)), "name", "name_1_age_-1"),
	)
}

func TestFindPlans(t *testing.T) {
	te := newTestEngine(t)
	seedPeople(te)
	tests := []struct {
		name string
		req  FindRequest
		plan string
		docs string
	}{
		{"equality uses the index (numbers compare across types)", FindRequest{Filter: d("age", int32(30))},
			`IXSCAN age_1 { age: [ "[30, 30]" ] }`, "{ _id: 1, name: \"ann\", age: 30, tags: [ \"a\", \"b\" ] } { _id: 4, name: \"dee\", age: 30.0, tags: [] }"},
		{"range", FindRequest{Filter: d("age", d("$gt", int32(26), "$lte", int32(35))), Projection: d("_id", int32(1))},
			`IXSCAN age_1 { age: [ "(26, 35]" ] }`, "{ _id: 1 } { _id: 4 } { _id: 3 }"},
		{"$in", FindRequest{Filter: d("age", d("$in", bson.A{int32(25), int32(35)})), Projection: d("_id", int32(1))},
			`IXSCAN age_1 { age: [ "[25, 25]", "[35, 35]" ] }`, "{ _id: 2 } { _id: 3 }"},
		{"null finds missing fields through the index", FindRequest{Filter: d("age", nil), Projection: d("_id", int32(1))},
			`IXSCAN age_1 { age: [ "[null, null]" ] }`, "{ _id: 5 }"},
		{"multikey equality returns each document once", FindRequest{Filter: d("tags", d("$in", bson.A{"a", "b"})), Projection: d("_id", int32(1))},
			`IXSCAN tags_1 { tags: [ "[\"a\", \"a\"]", "[\"b\", \"b\"]" ] }`, "{ _id: 1 } { _id: 2 }"},
		{"empty array equality", FindRequest{Filter: d("tags", bson.A{}), Projection: d("_id", int32(1))},
			`IXSCAN tags_1 { tags: [ "[undefined, undefined]", "[[], []]" ] }`, "{ _id: 4 }"},
		{"compound prefix with sort on the second field", FindRequest{Filter: d("name", "ann"), Sort: d("age", int32(-1)), Projection: d("_id", int32(1))},
			`IXSCAN name_1_age_-1 { name: [ "[\"ann\", \"ann\"]" ], age: [ "[MaxKey, MinKey]" ] }`, "{ _id: 1 }"},
		{"sort provided by an index, reversed", FindRequest{Sort: d("age", int32(-1)), Projection: d("_id", int32(1)), Limit: 3},
			`IXSCAN age_1 { age: [ "[MinKey, MaxKey]" ] }`, "{ _id: 3 } { _id: 4 } { _id: 1 }"},
		{"no usable predicate scans the collection", FindRequest{Filter: d("age", d("$ne", int32(30))), Projection: d("_id", int32(1))},
			`COLLSCAN`, "{ _id: 2 } { _id: 3 } { _id: 5 }"},
		{"an unanchored regex scans all strings of the index", FindRequest{Filter: d("name", d("$regex", "e$")), Projection: d("_id", int32(1))},
			`IXSCAN name_1_age_-1 { name: [ "[\"\", {})", "[/e$/, /e$/]" ], age: [ "[MaxKey, MinKey]" ] }`, "{ _id: 4 } { _id: 5 }"},
		{"_id equality", FindRequest{Filter: d("_id", int32(3)), Projection: d("name", int32(1), "_id", int32(0))},
			`IXSCAN _id_ { _id: [ "[3, 3]" ] }`, "{ name: \"cy\" }"},
		{"blocking sort with skip and limit", FindRequest{Filter: d("_id", d("$gte", int32(1))), Sort: d("name", int32(-1)), Skip: 1, Limit: 2, Projection: d("name", int32(1))},
			`IXSCAN _id_ { _id: [ "[1, inf.0]" ] }`, "{ _id: 4, name: \"dee\" } { _id: 3, name: \"cy\" }"},
		{"hint by key pattern", FindRequest{Filter: d("age", int32(30)), Hint: d("name", int32(1), "age", int32(-1)), Projection: d("_id", int32(1))},
			`IXSCAN name_1_age_-1 { name: [ "[MinKey, MaxKey]" ], age: [ "[MaxKey, MinKey]" ] }`, "{ _id: 1 } { _id: 4 }"},
		{"$natural hint", FindRequest{Filter: d("age", int32(30)), Hint: d("$natural", int32(-1)), Projection: d("_id", int32(1))},
			`COLLSCAN`, "{ _id: 4 } { _id: 1 }"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := te.planOf("db", "p", tc.req); got != tc.plan {
				t.Errorf("plan\n got %s\nwant %s", got, tc.plan)
			}
			if got := te.mustFind("db", "p", tc.req); got != tc.docs {
				t.Errorf("docs\n got %s\nwant %s", got, tc.docs)
			}
		})
	}
}

func TestFindHints(t *testing.T) {
	te := newTestEngine(t)
	seedPeople(te)
	te.mustCreateIndexes("db", "p", d("key", d("h", int32(1)), "name", "h_1", "hidden", true))
	for _, hint := range []any{"nope", d("zz", int32(1)), "h_1"} {
		_, err := te.Find(t.Context(), "db", "p", FindRequest{Filter: d("age", int32(1)), Hint: hint})
		me := wantCode(t, err, mongoerr.BadValue, "")
		if !strings.HasPrefix(me.Message, "error processing query: ") ||
			!strings.HasSuffix(me.Message, "planner returned error :: caused by :: hint provided does not correspond to an existing index") {
			t.Fatalf("message %q", me.Message)
		}
	}
	// MongoDB rule: a hidden index is not used by the planner.
	if got := te.planOf("db", "p", FindRequest{Filter: d("h", int32(1))}); got != "COLLSCAN" {
		t.Fatalf("hidden index used: %s", got)
	}
}

func TestFindMissingCollection(t *testing.T) {
	te := newTestEngine(t)
	if got := te.mustFind("db", "none", FindRequest{Filter: d("a", int32(1))}); got != "" {
		t.Fatalf("got %s", got)
	}
	n, err := te.Count(t.Context(), "db", "none", CountRequest{})
	if err != nil || n != 0 {
		t.Fatalf("%d %v", n, err)
	}
}

func TestCountAndDistinct(t *testing.T) {
	te := newTestEngine(t)
	seedPeople(te)
	ctx := t.Context()
	tests := []struct {
		req  CountRequest
		want int64
	}{
		{CountRequest{}, 5},
		{CountRequest{Skip: 2}, 3},
		{CountRequest{Skip: 2, Limit: 2}, 2},
		{CountRequest{Filter: d("age", int32(30))}, 2},
		{CountRequest{Filter: d("age", d("$exists", true)), Limit: 3}, 3},
		{CountRequest{Skip: 10}, 0},
	}
	for _, tc := range tests {
		n, err := te.Count(ctx, "db", "p", tc.req)
		if err != nil || n != tc.want {
			t.Errorf("count %+v = %d %v, want %d", tc.req, n, err, tc.want)
		}
	}
	vals, err := te.Distinct(ctx, "db", "p", DistinctRequest{Key: "tags"})
	if err != nil {
		t.Fatal(err)
	}
	if got := fmtDoc(bson.D{{Key: "v", Value: vals}}); got != `{ v: [ "a", "b" ] }` {
		t.Fatalf("distinct tags %s", got)
	}
	vals, _ = te.Distinct(ctx, "db", "p", DistinctRequest{Key: "age", Filter: d("name", d("$ne", "bob"))})
	if got := fmtDoc(bson.D{{Key: "v", Value: vals}}); got != `{ v: [ 30, 35 ] }` {
		t.Fatalf("distinct age %s", got)
	}
}

func TestFindProjectionPositional(t *testing.T) {
	te := newTestEngine(t)
	te.mustInsert("db", "c", d("_id", int32(1), "a", bson.A{int32(5), int32(9), int32(12)}))
	got := te.mustFind("db", "c", FindRequest{Filter: d("a", d("$gt", int32(8))), Projection: d("a.$", int32(1))})
	if got != "{ _id: 1, a: [ 9 ] }" {
		t.Fatalf("got %s", got)
	}
}

func TestCursorStreamsAndCloses(t *testing.T) {
	te := newTestEngine(t)
	var docs []bson.D
	for i := 0; i < 50; i++ {
		docs = append(docs, d("_id", int32(i)))
	}
	te.mustInsert("db", "c", docs...)
	cur, err := te.Find(t.Context(), "db", "c", FindRequest{})
	if err != nil {
		t.Fatal(err)
	}
	// Writes after the find do not show up: the cursor reads its snapshot.
	te.mustInsert("db", "c", d("_id", int32(100)))
	n := 0
	for {
		_, err := cur.Next(t.Context())
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	if n != 50 {
		t.Fatalf("read %d", n)
	}
	cur.Close()
	cur.Close()
	if _, err := cur.Next(t.Context()); !errors.Is(err, ErrCursorClosed) {
		t.Fatalf("after close: %v", err)
	}
}
