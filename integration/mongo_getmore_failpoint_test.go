package integration_test

import (
	"errors"
	"slices"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/mayfly/mayfly/integration/harness"
)

func failGetMore(t *testing.T, cl *mongo.Client, code int32) {
	t.Helper()
	if err := cl.Database("admin").RunCommand(t.Context(), bson.D{
		{Key: "configureFailPoint", Value: "failGetMoreAfterCursorCheckout"},
		{Key: "mode", Value: bson.D{{Key: "times", Value: 1}}},
		{Key: "data", Value: bson.D{{Key: "errorCode", Value: code}}},
	}).Err(); err != nil {
		t.Fatal(err)
	}
}

// Ensure that the failGetMoreAfterCursorCheckout fail point fails one
// getMore with its error code and kills the cursor, that a change stream's
// getMore failing with a resumable code carries ResumableChangeStreamError
// (another code does not), and that the driver's change stream resumes
// after it and still sees the change.
func TestMongoFailGetMoreAfterCursorCheckout(t *testing.T) {
	ctx := t.Context()
	cl := mongoClient(t, harness.Start(t, "--change-streams", "--set-parameter", "enableTestCommands=1"))
	db := cl.Database("app")
	c := db.Collection("items")
	if _, err := c.InsertMany(ctx, []any{bson.D{{Key: "_id", Value: 1}}, bson.D{{Key: "_id", Value: 2}}, bson.D{{Key: "_id", Value: 3}}}); err != nil {
		t.Fatal(err)
	}

	var first struct {
		Cursor struct {
			ID int64 `bson:"id"`
		} `bson:"cursor"`
	}
	if err := db.RunCommand(ctx, bson.D{{Key: "find", Value: "items"}, {Key: "batchSize", Value: 1}}).Decode(&first); err != nil {
		t.Fatal(err)
	}
	getMore := bson.D{{Key: "getMore", Value: first.Cursor.ID}, {Key: "collection", Value: "items"}}
	failGetMore(t, cl, 2)
	err := db.RunCommand(ctx, getMore).Err()
	var ce mongo.CommandError
	if !errors.As(err, &ce) || ce.Code != 2 || ce.Message != "Hit the 'failGetMoreAfterCursorCheckout' failpoint" || len(ce.Labels) != 0 {
		t.Fatalf("getMore under the fail point: %v (labels %v)", err, ce.Labels)
	}
	if err := db.RunCommand(ctx, getMore).Err(); !errors.As(err, &ce) || ce.Code != 43 {
		t.Fatalf("getMore of the killed cursor: %v", err)
	}

	for _, tc := range []struct {
		code      int32
		resumable bool
	}{{10107, true}, {6, true}, {2, false}} {
		if err := db.RunCommand(ctx, bson.D{{Key: "aggregate", Value: "items"},
			{Key: "pipeline", Value: bson.A{bson.D{{Key: "$changeStream", Value: bson.D{}}}}},
			{Key: "cursor", Value: bson.D{}}}).Decode(&first); err != nil {
			t.Fatal(err)
		}
		failGetMore(t, cl, tc.code)
		err := db.RunCommand(ctx, bson.D{{Key: "getMore", Value: first.Cursor.ID}, {Key: "collection", Value: "items"}}).Err()
		if !errors.As(err, &ce) || ce.Code != tc.code {
			t.Fatalf("change stream getMore under the fail point (%d): %v", tc.code, err)
		}
		if got := slices.Contains(ce.Labels, "ResumableChangeStreamError"); got != tc.resumable {
			t.Fatalf("code %d: labels %v, want ResumableChangeStreamError %v", tc.code, ce.Labels, tc.resumable)
		}
	}

	cs, err := c.Watch(ctx, mongo.Pipeline{}, options.ChangeStream().SetBatchSize(1))
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close(ctx)
	failGetMore(t, cl, 10107)
	if _, err := c.InsertOne(ctx, bson.D{{Key: "_id", Value: 4}}); err != nil {
		t.Fatal(err)
	}
	if !cs.Next(ctx) {
		t.Fatalf("change stream did not resume: %v", cs.Err())
	}
	if id := cs.Current.Lookup("documentKey", "_id").AsInt64(); id != 4 {
		t.Fatalf("event after resuming: %s", cs.Current)
	}
}
