package integration_test

import (
	"errors"
	"regexp"
	"strconv"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/mayfly/mayfly/integration/harness"
)

// openCursor runs find on db.coll with batchSize 2 and returns the id of
// the cursor left open.
func openCursor(t *testing.T, db *mongo.Database, coll string, sess bson.D) int64 {
	t.Helper()
	cmd := bson.D{{Key: "find", Value: coll}, {Key: "batchSize", Value: 2}}
	if sess != nil {
		cmd = append(cmd, bson.E{Key: "lsid", Value: sess})
	}
	var reply struct {
		Cursor struct {
			ID int64 `bson:"id"`
		} `bson:"cursor"`
	}
	if err := db.RunCommand(t.Context(), cmd).Decode(&reply); err != nil {
		t.Fatal(err)
	}
	if reply.Cursor.ID == 0 {
		t.Fatal("find left no cursor open")
	}
	return reply.Cursor.ID
}

func fillCollection(t *testing.T, c *mongo.Collection, n int) {
	t.Helper()
	docs := make([]any, n)
	for i := range docs {
		docs[i] = bson.D{{Key: "_id", Value: i}}
	}
	if _, err := c.InsertMany(t.Context(), docs); err != nil {
		t.Fatal(err)
	}
}

func wantCommandErrorMatching(t *testing.T, err error, code int32, re string) {
	t.Helper()
	var ce mongo.CommandError
	if !errors.As(err, &ce) || ce.Code != code || !regexp.MustCompile(re).MatchString(ce.Message) {
		t.Fatalf("error = %v, want code %d matching %q", err, code, re)
	}
}

// Ensure that dropping a collection, dropping its database or renaming it
// kills the cursors open on it as MongoDB 7.0 does: the next getMore
// fails with QueryPlanKilled (175) naming the event and the collection's
// UUID, and the cursor is gone afterwards.
func TestMongoCursorKilledByDropAndRename(t *testing.T) {
	s := harness.Start(t)
	cl := mongoClient(t, s)
	ctx := t.Context()
	db := cl.Database("inval")
	uuid := `[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`
	getMore := func(id int64, coll string) error {
		return db.RunCommand(ctx, bson.D{{Key: "getMore", Value: id}, {Key: "collection", Value: coll}}).Err()
	}

	fillCollection(t, db.Collection("a"), 5)
	id := openCursor(t, db, "a", nil)
	if err := db.Collection("a").Drop(ctx); err != nil {
		t.Fatal(err)
	}
	wantCommandErrorMatching(t, getMore(id, "a"), 175, `^collection dropped\. UUID `+uuid+`$`)
	wantCommandError(t, getMore(id, "a"), 43, "cursor id "+strconv.FormatInt(id, 10)+" not found")

	fillCollection(t, db.Collection("b"), 5)
	id = openCursor(t, db, "b", nil)
	if err := cl.Database("admin").RunCommand(ctx, bson.D{{Key: "renameCollection", Value: "inval.b"}, {Key: "to", Value: "inval.c"}}).Err(); err != nil {
		t.Fatal(err)
	}
	wantCommandErrorMatching(t, getMore(id, "b"), 175, `^collection renamed from 'inval\.b' to 'inval\.c'\. UUID `+uuid+`$`)

	id = openCursor(t, db, "c", nil)
	fillCollection(t, cl.Database("kept").Collection("x"), 5)
	other := openCursor(t, cl.Database("kept"), "x", nil)
	if err := db.Drop(ctx); err != nil {
		t.Fatal(err)
	}
	wantCommandErrorMatching(t, getMore(id, "c"), 175, `^collection dropped\. UUID `+uuid+`$`)
	// A cursor of another database is untouched.
	if err := cl.Database("kept").RunCommand(ctx, bson.D{{Key: "getMore", Value: other}, {Key: "collection", Value: "x"}}).Err(); err != nil {
		t.Fatalf("getMore on another database: %v", err)
	}
}

// Ensure that a drop ends an aggregate cursor and a change stream as
// MongoDB 7.0 ends them: the aggregate's next getMore fails with
// QueryPlanKilled (175), as a find's does (MongoDB's
// aggregation_cursor_invalidations test), while a change stream on the
// collection is not killed but hands out the drop and an invalidate,
// closing its cursor with that batch, so a later getMore finds no cursor.
func TestMongoAggregateAndChangeStreamCursorsOnDrop(t *testing.T) {
	s := harness.Start(t, "--change-streams")
	cl := mongoClient(t, s)
	ctx := t.Context()
	db := cl.Database("inval")
	coll := db.Collection("agg")
	fillCollection(t, coll, 5)
	var agg struct {
		Cursor struct {
			ID int64 `bson:"id"`
		} `bson:"cursor"`
	}
	if err := db.RunCommand(ctx, bson.D{{Key: "aggregate", Value: "agg"}, {Key: "pipeline", Value: bson.A{}},
		{Key: "cursor", Value: bson.D{{Key: "batchSize", Value: 2}}}}).Decode(&agg); err != nil || agg.Cursor.ID == 0 {
		t.Fatalf("aggregate: id %d, %v", agg.Cursor.ID, err)
	}
	stream, err := coll.Watch(ctx, mongo.Pipeline{})
	if err != nil {
		t.Fatal(err)
	}
	defer stream.Close(ctx)
	if err := coll.Drop(ctx); err != nil {
		t.Fatal(err)
	}
	err = db.RunCommand(ctx, bson.D{{Key: "getMore", Value: agg.Cursor.ID}, {Key: "collection", Value: "agg"}}).Err()
	wantCommandErrorMatching(t, err, 175, `collection dropped\. UUID `)

	var types []string
	for len(types) < 2 && stream.Next(ctx) {
		types = append(types, stream.Current.Lookup("operationType").StringValue())
	}
	if len(types) != 2 || types[0] != "drop" || types[1] != "invalidate" {
		t.Fatalf("change stream events %v (%v), want drop then invalidate", types, stream.Err())
	}
	if stream.ID() != 0 {
		t.Fatalf("the change stream's cursor %d is still open after its invalidate", stream.ID())
	}
}
