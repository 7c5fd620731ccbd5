package integration_test

import (
	"errors"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// Black-box tests of $changeStreamSplitLargeEvent through the Go driver: an
// update whose event holds its pre-image, its update description and its
// looked-up post-image, each of 9 MiB, comes in fragments that resume one
// after the other.

var splitStage = mongo.Pipeline{{{Key: "$changeStreamSplitLargeEvent", Value: bson.D{}}}}

// bigDoc writes a document with a 9 MiB field.
func bigDoc(t *testing.T, c *mongo.Collection) {
	t.Helper()
	if _, err := c.InsertOne(t.Context(), bson.D{{Key: "_id", Value: 1}, {Key: "a", Value: strings.Repeat("x", 9<<20)}}); err != nil {
		t.Fatal(err)
	}
}

// bigUpdate updates bigDoc's field to another 9 MiB value, then inserts a
// small document.
func bigUpdate(t *testing.T, c *mongo.Collection) {
	t.Helper()
	ctx := t.Context()
	if _, err := c.UpdateOne(ctx, bson.D{{Key: "_id", Value: 1}}, bson.D{{Key: "$set", Value: bson.D{{Key: "a", Value: strings.Repeat("y", 9<<20)}}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.InsertOne(ctx, bson.D{{Key: "_id", Value: 2}}); err != nil {
		t.Fatal(err)
	}
}

// imagesCollection creates app.<name> with pre- and post-images.
func imagesCollection(t *testing.T, db *mongo.Database, name string) *mongo.Collection {
	t.Helper()
	if err := db.CreateCollection(t.Context(), name, options.CreateCollection().SetChangeStreamPreAndPostImages(bson.D{{Key: "enabled", Value: true}})); err != nil {
		t.Fatal(err)
	}
	return db.Collection(name)
}

var bigEventOpts = options.ChangeStream().SetFullDocument(options.UpdateLookup).SetFullDocumentBeforeChange(options.Required)

// Ensure that an update event of 27 MiB comes as three fragments, each
// within 16 MB with its own _id and splitEvent, holding together every
// field of the event once, and that resuming from a fragment's token gives
// the next fragment, from the last one's the next event.
func TestChangeStreamSplitLargeEvent(t *testing.T) {
	e := startTTL(t, "--change-streams")
	c := imagesCollection(t, e.cl.Database("app"), "big")
	bigDoc(t, c)
	cs := watch(t, c, splitStage, bigEventOpts)
	bigUpdate(t, c)

	var frags []bson.Raw
	for range 3 {
		frags = append(frags, nextEvent(t, cs))
	}
	seen := map[string]int{}
	for i, f := range frags {
		if len(f) > 16<<20+8<<10 {
			t.Fatalf("fragment %d has %d bytes", i+1, len(f))
		}
		if n, of := i32(f, "splitEvent", "fragment"), i32(f, "splitEvent", "of"); n != int32(i+1) || of != 3 {
			t.Fatalf("fragment %d: splitEvent %d of %d", i+1, n, of)
		}
		elems, _ := f.Elements()
		for _, el := range elems[2:] {
			seen[el.Key()]++
		}
	}
	if str(frags[0], "operationType") != "update" {
		t.Fatalf("first fragment %v", seen)
	}
	for _, k := range []string{"operationType", "ns", "documentKey", "updateDescription", "fullDocument", "fullDocumentBeforeChange"} {
		if seen[k] != 1 {
			t.Fatalf("field %s in %d fragments", k, seen[k])
		}
	}
	if ev := nextEvent(t, cs); str(ev, "operationType") != "insert" {
		t.Fatalf("event after the fragments %s", ev.Lookup("operationType"))
	}

	for i, want := range []string{"fragment 2", "fragment 3", "insert"} {
		token := frags[i].Lookup("_id").Document()
		rs := watch(t, c, splitStage, options.ChangeStream().SetFullDocument(options.UpdateLookup).SetFullDocumentBeforeChange(options.Required).SetResumeAfter(token))
		ev := nextEvent(t, rs)
		got := str(ev, "operationType")
		if n := i32(ev, "splitEvent", "fragment"); n > 0 {
			got = "fragment " + string(rune('0'+n))
		}
		if got != want {
			t.Fatalf("resumed after fragment %d: got %s, want %s", i+1, got, want)
		}
	}

	// A fragment's token needs the stage to resume from.
	_, err := c.Watch(t.Context(), mongo.Pipeline{}, options.ChangeStream().SetResumeAfter(frags[0].Lookup("_id").Document()))
	wantServerError(t, err, 280, "To resume from a split event, the $changeStream pipeline must include a $changeStreamSplitLargeEvent stage")
}

// Ensure that without the stage the large event fails the stream with
// BSONObjectTooLarge, and that the stage must be the last one.
func TestChangeStreamLargeEventNotSplit(t *testing.T) {
	e := startTTL(t, "--change-streams")
	c := imagesCollection(t, e.cl.Database("app"), "big")
	bigDoc(t, c)
	cs := watch(t, c, nil, bigEventOpts)
	bigUpdate(t, c)
	if cs.Next(t.Context()) {
		t.Fatalf("the 27 MiB event was handed out: %s", cs.Current.Lookup("operationType"))
	}
	var se mongo.ServerError
	if !errors.As(cs.Err(), &se) || !se.HasErrorCode(10334) {
		t.Fatalf("got %v, want BSONObjectTooLarge", cs.Err())
	}

	_, err := c.Watch(t.Context(), append(append(mongo.Pipeline{}, splitStage...), bson.D{{Key: "$match", Value: bson.D{}}}))
	wantServerError(t, err, 7182802, "$changeStreamSplitLargeEvent must be the last stage in the pipeline")
	_, err = c.Watch(t.Context(), mongo.Pipeline{{{Key: "$changeStreamSplitLargeEvent", Value: bson.D{{Key: "x", Value: 1}}}}})
	wantServerError(t, err, 7182800, "$changeStreamSplitLargeEvent spec should be an empty object")
	_, err = c.Aggregate(t.Context(), splitStage)
	wantServerError(t, err, 20, "$changeStreamSplitLargeEvent can only be used in a $changeStream pipeline")
}

// wantServerError asserts err is a server error with code and message.
func wantServerError(t *testing.T, err error, code int, msg string) {
	t.Helper()
	var ce mongo.CommandError
	if !errors.As(err, &ce) {
		t.Fatalf("got %v (%T), want code %d", err, err, code)
	}
	if int(ce.Code) != code || ce.Message != msg {
		t.Fatalf("got %d %q, want %d %q", ce.Code, ce.Message, code, msg)
	}
}
