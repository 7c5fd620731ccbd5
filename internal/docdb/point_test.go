package docdb

import (
	"errors"
	"io"
	"math"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// findBoth runs req through the point read and through the general path
// (the same query with the _id index hinted, which the point read never
// answers), fails the test when they differ, and returns the result.
func (te *testEngine) findBoth(db, coll string, req FindRequest) string {
	te.t.Helper()
	got := te.mustFind(db, coll, req)
	general := req
	general.Hint = "_id_"
	if want := te.mustFind(db, coll, general); got != want {
		te.t.Fatalf("%s: point read %q, general path %q", fmtDoc(req.Filter), got, want)
	}
	return got
}

// isPoint reports whether the engine answers req with a point read.
func (te *testEngine) isPoint(db, coll string, req FindRequest) bool {
	te.t.Helper()
	cur, err := te.Find(te.t.Context(), db, coll, req)
	if err != nil {
		te.t.Fatal(err)
	}
	defer cur.Close()
	_, ok := cur.(*pointCursor)
	return ok
}

// Ensure that a find by _id is answered by one Get exactly when the
// filter is {_id: <plain value>} without sort, hint or skip.
func TestPointReadEligibility(t *testing.T) {
	te := newTestEngine(t)
	te.mustInsert("app", "c", d("_id", int32(1), "v", "a"))
	tests := []struct {
		name string
		req  FindRequest
		want bool
	}{
		{"int", FindRequest{Filter: d("_id", int32(1))}, true},
		{"limit and projection", FindRequest{Filter: d("_id", int64(1)), Limit: 1, Projection: d("v", int32(1))}, true},
		{"string", FindRequest{Filter: d("_id", "x")}, true},
		{"ObjectId", FindRequest{Filter: d("_id", bson.NewObjectID())}, true},
		{"operator", FindRequest{Filter: d("_id", d("$eq", int32(1)))}, false},
		{"embedded document", FindRequest{Filter: d("_id", d("a", int32(1)))}, false},
		{"array", FindRequest{Filter: d("_id", bson.A{int32(1)})}, false},
		{"regex", FindRequest{Filter: d("_id", bson.Regex{Pattern: "^a"})}, false},
		{"null", FindRequest{Filter: d("_id", nil)}, false},
		{"MinKey", FindRequest{Filter: d("_id", bson.MinKey{})}, false},
		{"another field", FindRequest{Filter: d("_id", int32(1), "v", "a")}, false},
		{"not _id", FindRequest{Filter: d("v", "a")}, false},
		{"sort", FindRequest{Filter: d("_id", int32(1)), Sort: d("v", int32(1))}, false},
		{"natural", FindRequest{Filter: d("_id", int32(1)), Sort: d("$natural", int32(-1))}, false},
		{"hint", FindRequest{Filter: d("_id", int32(1)), Hint: "_id_"}, false},
		{"skip", FindRequest{Filter: d("_id", int32(1)), Skip: 1}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := te.isPoint("app", "c", tt.req); got != tt.want {
				t.Fatalf("point read: %v, want %v", got, tt.want)
			}
		})
	}
	t.Run("missing collection", func(t *testing.T) {
		if got := te.mustFind("app", "none", FindRequest{Filter: d("_id", int32(1))}); got != "" {
			t.Fatalf("got %s", got)
		}
	})
}

// Ensure that the point read returns what the general path returns: the
// equal _id across numeric types, nothing for a missing one, projections
// (inclusion, exclusion, computed with $$NOW, positional) and limits.
func TestPointReadMatchesGeneralPath(t *testing.T) {
	te := newTestEngine(t)
	oid := bson.NewObjectID()
	te.mustInsert("app", "c",
		d("_id", int32(7), "v", "int", "arr", bson.A{int32(1), int32(2), int32(3)}, "sub", d("a", int32(1), "b", int32(2))),
		d("_id", 2.5, "v", "double"),
		d("_id", "s", "v", "string"),
		d("_id", oid, "v", "oid"),
		d("_id", bson.DateTime(1000), "v", "date"),
		d("_id", true, "v", "bool"),
		d("_id", bson.Binary{Subtype: 4, Data: []byte("0123456789abcdef")}, "v", "uuid"),
		d("_id", bson.Timestamp{T: 1, I: 2}, "v", "ts"),
		d("_id", bson.NewDecimal128(0x3040000000000000, 9), "v", "decimal"),
		d("_id", nan(), "v", "nan"),
		d("_id", int64(0), "v", "zero"),
	)
	tests := []struct {
		name string
		req  FindRequest
		want string
	}{
		{"int32", FindRequest{Filter: d("_id", int32(7))}, `{ _id: 7, v: "int", arr: [ 1, 2, 3 ], sub: { a: 1, b: 2 } }`},
		{"int64 equal to int32", FindRequest{Filter: d("_id", int64(7)), Projection: d("v", int32(1))}, `{ _id: 7, v: "int" }`},
		{"double equal to int32", FindRequest{Filter: d("_id", 7.0), Projection: d("v", int32(1))}, `{ _id: 7, v: "int" }`},
		{"decimal equal to int32", FindRequest{Filter: d("_id", bson.NewDecimal128(0x3040000000000000, 7)), Projection: d("v", int32(1))}, `{ _id: 7, v: "int" }`},
		{"double", FindRequest{Filter: d("_id", 2.5)}, `{ _id: 2.5, v: "double" }`},
		{"near miss", FindRequest{Filter: d("_id", 7.5)}, ``},
		{"string", FindRequest{Filter: d("_id", "s"), Projection: d("_id", int32(0))}, `{ v: "string" }`},
		{"string is not a number", FindRequest{Filter: d("_id", "7")}, ``},
		{"ObjectId", FindRequest{Filter: d("_id", oid), Projection: d("_id", int32(0))}, `{ v: "oid" }`},
		{"date", FindRequest{Filter: d("_id", bson.DateTime(1000)), Projection: d("_id", int32(0))}, `{ v: "date" }`},
		{"bool", FindRequest{Filter: d("_id", true), Projection: d("_id", int32(0))}, `{ v: "bool" }`},
		{"binary", FindRequest{Filter: d("_id", bson.Binary{Subtype: 4, Data: []byte("0123456789abcdef")}), Projection: d("_id", int32(0))}, `{ v: "uuid" }`},
		{"binary of another subtype", FindRequest{Filter: d("_id", bson.Binary{Subtype: 0, Data: []byte("0123456789abcdef")})}, ``},
		{"timestamp", FindRequest{Filter: d("_id", bson.Timestamp{T: 1, I: 2}), Projection: d("_id", int32(0))}, `{ v: "ts" }`},
		{"decimal", FindRequest{Filter: d("_id", bson.NewDecimal128(0x3040000000000000, 9)), Projection: d("_id", int32(0))}, `{ v: "decimal" }`},
		{"exclusion", FindRequest{Filter: d("_id", int32(7)), Projection: d("arr", int32(0), "sub", int32(0))}, `{ _id: 7, v: "int" }`},
		{"dotted inclusion", FindRequest{Filter: d("_id", int32(7)), Projection: d("sub.b", int32(1))}, `{ _id: 7, sub: { b: 2 } }`},
		{"$slice", FindRequest{Filter: d("_id", int32(7)), Projection: d("arr", d("$slice", int32(-1)), "v", int32(0), "sub", int32(0))}, `{ _id: 7, arr: [ 3 ] }`},
		{"computed", FindRequest{Filter: d("_id", int32(7)), Projection: d("_id", int32(0), "w", d("$concat", bson.A{"$v", "!"}))}, `{ w: "int!" }`},
		{"limit", FindRequest{Filter: d("_id", int32(7)), Limit: 1, Projection: d("v", int32(1))}, `{ _id: 7, v: "int" }`},
		{"missing", FindRequest{Filter: d("_id", int32(8))}, ``},
		{"NaN", FindRequest{Filter: d("_id", nan()), Projection: d("_id", int32(0))}, `{ v: "nan" }`},
		{"negative zero", FindRequest{Filter: d("_id", math.Copysign(0, -1)), Projection: d("_id", int32(0))}, `{ v: "zero" }`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !te.isPoint("app", "c", tt.req) {
				t.Fatal("not answered by a point read")
			}
			if got := te.findBoth("app", "c", tt.req); got != tt.want {
				t.Fatalf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
	errTests := []struct {
		name string
		req  FindRequest
	}{
		{"positional projection", FindRequest{Filter: d("_id", int32(7)), Projection: d("arr.$", int32(1))}},
		{"invalid projection", FindRequest{Filter: d("_id", int32(7)), Projection: d("a", int32(1), "b", int32(0))}},
	}
	for _, tt := range errTests {
		t.Run(tt.name+" fails as in the general path", func(t *testing.T) {
			_, pointErr := te.findAll("app", "c", tt.req)
			tt.req.Hint = "_id_"
			_, generalErr := te.findAll("app", "c", tt.req)
			if pointErr == nil || generalErr == nil || pointErr.Error() != generalErr.Error() {
				t.Fatalf("point read: %v, general path: %v", pointErr, generalErr)
			}
		})
	}
}

// Ensure that the point read keeps strict visibility: an expired document
// (TTL index, array of dates, partial TTL index, TTL policy) is not
// returned, lazy visibility returns it, and a cursor opened before the
// document expires does not return it once it has.
func TestPointReadVisibility(t *testing.T) {
	t.Run("TTL index", func(t *testing.T) {
		te := newTestEngine(t)
		seedSessions(te)
		tests := []struct {
			id   string
			want string
		}{
			{"old", ``},
			{"fresh", `{ _id: "fresh" }`},
			{"text", `{ _id: "text" }`},
			{"array", ``},
			{"missing", `{ _id: "missing" }`},
		}
		for _, tt := range tests {
			req := FindRequest{Filter: d("_id", tt.id), Projection: d("_id", int32(1))}
			if !te.isPoint("app", "s", req) {
				t.Fatalf("%s: not answered by a point read", tt.id)
			}
			if got := te.findBoth("app", "s", req); got != tt.want {
				t.Errorf("%s: got %q, want %q", tt.id, got, tt.want)
			}
		}
		te.clock.Advance(61 * time.Second)
		if got := te.findBoth("app", "s", FindRequest{Filter: d("_id", "fresh")}); got != "" {
			t.Fatalf("fresh after 61 s: %s", got)
		}
	})
	t.Run("expiring while the cursor is open", func(t *testing.T) {
		te := newTestEngine(t)
		seedSessions(te)
		cur, err := te.Find(t.Context(), "app", "s", FindRequest{Filter: d("_id", "fresh")})
		if err != nil {
			t.Fatal(err)
		}
		defer cur.Close()
		te.clock.Advance(61 * time.Second)
		if r, err := cur.Next(t.Context()); !errors.Is(err, io.EOF) {
			t.Fatalf("Next = %v, %v; want EOF", r, err)
		}
	})
	t.Run("lazy visibility", func(t *testing.T) {
		te := newTestEngine(t, func(o *Options) { o.Visibility = VisibilityLazy })
		seedSessions(te)
		if got := te.findBoth("app", "s", FindRequest{Filter: d("_id", "old"), Projection: d("k", int32(1))}); got != `{ _id: "old", k: 1 }` {
			t.Fatalf("got %s", got)
		}
	})
	t.Run("partial TTL index", func(t *testing.T) {
		te := newTestEngine(t)
		now := te.clock.Now()
		te.mustCreateIndexes("app", "p", d("key", d("at", int32(1)), "name", "at_1", "expireAfterSeconds", int32(0),
			"partialFilterExpression", d("z", d("$exists", true))))
		te.mustInsert("app", "p", d("_id", int32(1), "at", date(now), "z", int32(2)), d("_id", int32(2), "at", date(now)))
		if got := te.findBoth("app", "p", FindRequest{Filter: d("_id", int32(1))}); got != "" {
			t.Fatalf("covered by the partial TTL index: %s", got)
		}
		if got := te.findBoth("app", "p", FindRequest{Filter: d("_id", int32(2)), Projection: d("_id", int32(1))}); got != "{ _id: 2 }" {
			t.Fatalf("outside the partial TTL index: %s", got)
		}
	})
	t.Run("TTL policy", func(t *testing.T) {
		inBubble(t, func(t *testing.T) {
			te := newTestEngine(t)
			now := te.clock.Now()
			te.mustInsert("app", "sessions",
				d("_id", "old", "expireAt", date(now.Add(-time.Hour))),
				d("_id", "soon", "expireAt", date(now.Add(time.Hour))))
			if got := te.findBoth("app", "sessions", FindRequest{Filter: d("_id", "old"), Projection: d("_id", int32(1))}); got != `{ _id: "old" }` {
				t.Fatalf("before the policy: %s", got)
			}
			op := te.enable("sessions", "expireAt", 0)
			if got := te.findBoth("app", "sessions", FindRequest{Filter: d("_id", "old")}); got != "" {
				t.Fatalf("expired under the policy: %s", got)
			}
			if got := te.findBoth("app", "sessions", FindRequest{Filter: d("_id", "soon"), Projection: d("_id", int32(1))}); got != `{ _id: "soon" }` {
				t.Fatalf("live under the policy: %s", got)
			}
			te.waitOp(op.ID)
		})
	})
}
