package docdb

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/events"
)

// Ensure that the prefilter keeps exactly the leading $match's conditions
// on operationType and ns, and answers a record as the $match answers its
// event.
func TestRecordPrefilter(t *testing.T) {
	match := func(m bson.D, rest ...bson.D) []bson.D {
		return append([]bson.D{{{Key: "$match", Value: m}}}, rest...)
	}
	for _, tc := range []struct {
		name     string
		pipeline []bson.D
		kept     bson.D // nil: no prefilter
		whole    bool
	}{
		{"no pipeline", nil, nil, false},
		{"not leading", []bson.D{{{Key: "$project", Value: d("a", int32(1))}}, {{Key: "$match", Value: d("operationType", "delete")}}}, nil, false},
		{"operationType", match(d("operationType", "delete")), d("operationType", "delete"), true},
		{"with expiredBy", match(d("operationType", "delete", "expiredBy", d("$exists", true))), d("operationType", "delete", "expiredBy", d("$exists", true)), true},
		{"with content", match(d("operationType", "delete", "fullDocumentBeforeChange.a", d("$exists", true))), d("operationType", "delete"), false},
		{"content only", match(d("fullDocument.a", int32(1))), nil, false},
		{"ns paths", match(d("ns.coll", d("$in", bson.A{"a", "b"}), "ns.db", "app")), d("ns.coll", d("$in", bson.A{"a", "b"}), "ns.db", "app"), true},
		{"or of record fields", match(d("$or", bson.A{d("operationType", "insert"), d("ns.coll", "x")}, "$comment", "c")), d("$or", bson.A{d("operationType", "insert"), d("ns.coll", "x")}), false},
		{"or reading content", match(d("$or", bson.A{d("operationType", "insert"), d("fullDocument.a", int32(1))})), nil, false},
		{"expr", match(d("$expr", d("$eq", bson.A{"$operationType", "delete"}))), nil, false},
	} {
		f, whole := recordPrefilter(tc.pipeline)
		switch {
		case whole != tc.whole:
			t.Errorf("%s: whole %v, want %v", tc.name, whole, tc.whole)
		case tc.kept == nil && f != nil:
			t.Errorf("%s: prefilter %v, want none", tc.name, f.Spec())
		case tc.kept != nil && f == nil:
			t.Errorf("%s: no prefilter, want %v", tc.name, tc.kept)
		case f != nil && fmtDoc(f.Spec()) != fmtDoc(tc.kept):
			t.Errorf("%s: prefilter %v, want %v", tc.name, f.Spec(), tc.kept)
		}
	}
	f, _ := recordPrefilter(match(d("operationType", "delete", "ns", d("db", "app", "coll", "s"))))
	for _, tc := range []struct {
		ev   events.Event
		want bool
	}{
		{events.Event{Record: events.Record{Op: events.OpDelete, DB: "app", Coll: "s"}}, true},
		{events.Event{Record: events.Record{Op: events.OpInsert, DB: "app", Coll: "s"}}, false},
		{events.Event{Record: events.Record{Op: events.OpDelete, DB: "app", Coll: "t"}}, false},
		{events.Event{Record: events.Record{Op: events.OpDelete, DB: "app"}}, false},
	} {
		if got := f.Match(recordSkeleton(tc.ev)); got != tc.want {
			t.Errorf("%s %s.%s: %v, want %v", tc.ev.Op, tc.ev.DB, tc.ev.Coll, got, tc.want)
		}
	}
	ttl, _ := recordPrefilter(match(d("expiredBy.source", "ttl")))
	expired := events.Event{Record: events.Record{Op: events.OpDelete, DB: "app", Coll: "s", Expired: &events.Expiry{Source: "ttl", Name: "at_1"}}}
	if !ttl.Match(recordSkeleton(expired)) {
		t.Errorf("expiredBy.source of an expiry deletion not matched")
	}
	expired.Expired = nil
	if ttl.Match(recordSkeleton(expired)) {
		t.Errorf("expiredBy.source of a user deletion matched")
	}
}

// Ensure that a stream of deletions gives the deletions, and the
// invalidate of a drop that its $match drops.
func TestChangeStreamPrefilterKeepsInvalidate(t *testing.T) {
	te := newTestEngine(t, withChangeLog)
	ctx := t.Context()
	te.mustInsert("app", "p", d("_id", int32(0)))
	cs, err := te.WatchChanges(ctx, ChangeStreamRequest{DB: "app", Coll: "p", Pipeline: []bson.D{{{Key: "$match", Value: d("operationType", "delete")}}}})
	if err != nil {
		t.Fatal(err)
	}
	te.mustInsert("app", "p", d("_id", int32(1)))
	if _, err := te.Delete(ctx, "app", "p", DeleteRequest{Statements: []DeleteStatement{{Filter: d("_id", int32(1)), Limit: 1}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := te.DropCollection(ctx, "app", "p"); err != nil {
		t.Fatal(err)
	}
	batch, err := cs.NextBatch(ctx, -1, 0)
	if err != nil {
		t.Fatal(err)
	}
	var ops []string
	for _, ev := range batch {
		ops = append(ops, ev.Lookup("operationType").StringValue())
	}
	if len(ops) != 2 || ops[0] != "delete" || ops[1] != "invalidate" {
		t.Fatalf("events %v, want delete and invalidate", ops)
	}
	if id := batch[0].Lookup("documentKey", "_id").Int32(); id != 1 {
		t.Fatalf("delete of %d", id)
	}
}
