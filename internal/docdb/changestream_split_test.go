package docdb

import (
	"bytes"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
)

// nineMB is a string field of 9 MiB: two of them in one event pass 16 MB.
var nineMB = strings.Repeat("x", 9<<20)

// largeUpdate writes a document with a 9 MiB field, then an update that
// sets it to another 9 MiB value; its event with fullDocument: updateLookup
// holds 18 MiB. It returns the stream opened before the update.
func largeUpdate(t *testing.T, te *testEngine, pipeline ...bson.D) *ChangeStream {
	t.Helper()
	te.mustInsert("app", "big", d("_id", int32(1), "a", nineMB))
	cs, err := te.WatchChanges(t.Context(), ChangeStreamRequest{DB: "app", Coll: "big", FullDocument: FullDocumentUpdateLookup, Pipeline: pipeline})
	if err != nil {
		t.Fatal(err)
	}
	te.mustUpdate("app", "big", UpdateStatement{Filter: d("_id", int32(1)), Update: d("$set", d("a", strings.Repeat("y", 9<<20)))})
	te.mustInsert("app", "big", d("_id", int32(2)))
	return cs
}

var splitPipeline = []bson.D{{{Key: "$changeStreamSplitLargeEvent", Value: bson.D{}}}}

// Ensure that an event over 16 MB comes in fragments, each under the limit
// with its own token and splitEvent, its small fields first, and that
// together they hold every field of the event once.
func TestChangeStreamSplitsLargeEvent(t *testing.T) {
	te := newTestEngine(t, withChangeLog)
	cs := largeUpdate(t, te, splitPipeline...)
	batch, err := cs.NextBatch(t.Context(), -1, 0)
	if err != nil {
		t.Fatal(err)
	}
	var frags []bson.Raw
	for len(batch) > 0 {
		frags = append(frags, batch...)
		if batch, err = cs.NextBatch(t.Context(), -1, 0); err != nil {
			t.Fatal(err)
		}
	}
	if len(frags) != 3 {
		t.Fatalf("got %d events, want 2 fragments and an insert", len(frags))
	}
	seen := map[string]int{}
	ids := map[string]bool{}
	for i, f := range frags[:2] {
		if len(f) > maxChangeEventSize {
			t.Fatalf("fragment %d has %d bytes", i+1, len(f))
		}
		elems, _ := f.Elements()
		if elems[0].Key() != "_id" || elems[1].Key() != "splitEvent" {
			t.Fatalf("fragment %d starts with %s, %s", i+1, elems[0].Key(), elems[1].Key())
		}
		if n, of := f.Lookup("splitEvent", "fragment").Int32(), f.Lookup("splitEvent", "of").Int32(); n != int32(i+1) || of != 2 {
			t.Fatalf("fragment %d: splitEvent %d of %d", i+1, n, of)
		}
		ids[f.Lookup("_id", "_data").StringValue()] = true
		for _, el := range elems[2:] {
			seen[el.Key()]++
		}
	}
	if len(ids) != 2 {
		t.Fatalf("fragment tokens %v", ids)
	}
	for _, k := range []string{"operationType", "clusterTime", "wallTime", "ns", "documentKey", "updateDescription", "fullDocument"} {
		if seen[k] != 1 {
			t.Fatalf("field %s in %d fragments", k, seen[k])
		}
	}
	if op := frags[0].Lookup("operationType").StringValue(); op != "update" {
		t.Fatalf("the first fragment holds the small fields; operationType %q", op)
	}
	if op := frags[2].Lookup("operationType").StringValue(); op != "insert" {
		t.Fatalf("event after the fragments: %s", frags[2].Lookup("operationType"))
	}
}

// Ensure that resuming from a fragment's token gives the next fragment,
// from the last fragment's token the next event, and that the token after
// a batch that ends inside a split event resumes inside it.
func TestChangeStreamResumeFromFragment(t *testing.T) {
	te := newTestEngine(t, withChangeLog)
	ctx := t.Context()
	cs := largeUpdate(t, te, splitPipeline...)
	first, err := cs.NextBatch(ctx, 1, 0)
	if err != nil || len(first) != 1 {
		t.Fatalf("batch %d, %v", len(first), err)
	}
	pbrt, _ := bson.Marshal(cs.PostBatchResumeToken())
	tok0, _ := bson.Marshal(bson.D{{Key: "_data", Value: first[0].Lookup("_id", "_data").StringValue()}})
	if !bytes.Equal(pbrt, tok0) {
		t.Fatalf("postBatchResumeToken %s, want the first fragment's %s", bson.Raw(pbrt), bson.Raw(tok0))
	}
	next := func(token bson.Raw) bson.Raw {
		t.Helper()
		rs, err := te.WatchChanges(ctx, ChangeStreamRequest{DB: "app", Coll: "big", FullDocument: FullDocumentUpdateLookup, Pipeline: splitPipeline, ResumeAfter: token})
		if err != nil {
			t.Fatal(err)
		}
		b, err := rs.NextBatch(ctx, 1, 0)
		if err != nil || len(b) != 1 {
			t.Fatalf("batch %d, %v", len(b), err)
		}
		return b[0]
	}
	second := next(tok0)
	if n := second.Lookup("splitEvent", "fragment").Int32(); n != 2 {
		t.Fatalf("resumed from fragment 1, got %s", second.Lookup("splitEvent"))
	}
	tok1, _ := bson.Marshal(bson.D{{Key: "_data", Value: second.Lookup("_id", "_data").StringValue()}})
	if ev := next(tok1); ev.Lookup("operationType").StringValue() != "insert" || ev.Lookup("splitEvent").Type != 0 {
		t.Fatalf("resumed from the last fragment, got %s", ev.Lookup("operationType"))
	}

	// Without the stage, a fragment's token cannot be resumed from.
	_, err = te.WatchChanges(ctx, ChangeStreamRequest{DB: "app", Coll: "big", ResumeAfter: tok0})
	wantCode(t, err, mongoerr.ChangeStreamFatalError, "To resume from a split event, the $changeStream pipeline must include a $changeStreamSplitLargeEvent stage")
	// With a pipeline that makes the event small, it is not split.
	small := append([]bson.D{{{Key: "$project", Value: d("fullDocument", int32(0))}}}, splitPipeline...)
	rs, err := te.WatchChanges(ctx, ChangeStreamRequest{DB: "app", Coll: "big", FullDocument: FullDocumentUpdateLookup, Pipeline: small, ResumeAfter: tok0})
	if err != nil {
		t.Fatal(err)
	}
	_, err = rs.NextBatch(ctx, -1, 0)
	wantCode(t, err, mongoerr.ChangeStreamFatalError, "Attempted to resume from a split event fragment, but the event in the resumed stream was not large enough to be split")
}

// Ensure that without the stage an event over 16 MB fails the stream with
// BSONObjectTooLarge.
func TestChangeStreamLargeEventWithoutSplit(t *testing.T) {
	te := newTestEngine(t, withChangeLog)
	cs := largeUpdate(t, te)
	_, err := cs.NextBatch(t.Context(), -1, 0)
	me := wantCode(t, err, mongoerr.BSONObjectTooLarge, "")
	if !strings.HasPrefix(me.Message, "BSONObj size: ") || !strings.Contains(me.Message, "is invalid. Size must be between 0 and 16793600(16MB) First element: _id: { _data: \"") {
		t.Fatalf("message %q", me.Message)
	}
}

// Ensure that the stage is parsed as MongoDB parses it: an empty object,
// the last stage.
func TestChangeStreamSplitStageRules(t *testing.T) {
	te := newTestEngine(t, withChangeLog)
	ctx := t.Context()
	_, err := te.WatchChanges(ctx, ChangeStreamRequest{DB: "app", Coll: "c", Pipeline: []bson.D{{{Key: "$changeStreamSplitLargeEvent", Value: d("x", int32(1))}}}})
	wantCode(t, err, mongoerr.Location7182800, "$changeStreamSplitLargeEvent spec should be an empty object")
	_, err = te.WatchChanges(ctx, ChangeStreamRequest{DB: "app", Coll: "c", Pipeline: []bson.D{{{Key: "$changeStreamSplitLargeEvent", Value: int32(1)}}}})
	wantCode(t, err, mongoerr.Location7182800, "$changeStreamSplitLargeEvent spec should be an empty object")
	_, err = te.WatchChanges(ctx, ChangeStreamRequest{DB: "app", Coll: "c", Pipeline: append(append([]bson.D{}, splitPipeline...), bson.D{{Key: "$match", Value: d()}})})
	wantCode(t, err, mongoerr.Location7182802, "$changeStreamSplitLargeEvent must be the last stage in the pipeline")
}

// Ensure that a field that does not fit in a fragment on its own fails the
// split with MongoDB's error.
func TestSplitEventFieldTooLarge(t *testing.T) {
	raw, err := bson.Marshal(d("_id", d("_data", "00"), "operationType", "update", "fullDocument", d("a", strings.Repeat("z", 17<<20))))
	if err != nil {
		t.Fatal(err)
	}
	_, err = splitEvent(raw, changeToken{seq: 7})
	wantCode(t, err, mongoerr.Location7182500, "")
	_, err = splitEvent(bson.Raw([]byte{5, 0, 0, 0, 0}), changeToken{seq: 7})
	wantCode(t, err, mongoerr.Location7182502, "Cannot split an empty event or an event containing solely '_id' field")
}
