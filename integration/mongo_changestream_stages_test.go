package integration_test

import (
	"errors"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

// Ensure that a change stream's pipeline with a stage name no pipeline
// knows is refused with 40324, as MongoDB parses the stage first, and a
// known stage a change stream does not allow with IllegalOperation (20).
func TestChangeStreamPipelineStageErrors(t *testing.T) {
	e := startTTL(t, "--change-streams")
	c := e.cl.Database("app").Collection("items")
	for _, tc := range []struct {
		stage bson.D
		code  int32
		msg   string
	}{
		{bson.D{{Key: "$unsupported", Value: 1}}, 40324, "Unrecognized pipeline stage name: '$unsupported'"},
		{bson.D{{Key: "$group", Value: bson.D{{Key: "_id", Value: nil}}}}, 20, "$group is not permitted in a $changeStream pipeline"},
	} {
		_, err := c.Watch(t.Context(), mongo.Pipeline{tc.stage})
		var ce mongo.CommandError
		if !errors.As(err, &ce) || ce.Code != tc.code || ce.Message != tc.msg {
			t.Fatalf("watch with %v: %v, want %d %q", tc.stage, err, tc.code, tc.msg)
		}
	}
}

// Ensure that a pipeline removing the events' _id (the resume token) fails
// the stream at its first event with ChangeStreamFatalError (280) labelled
// NonResumableChangeStreamError, so the driver does not resume it.
func TestChangeStreamProjectingOutIDIsFatal(t *testing.T) {
	e := startTTL(t, "--change-streams")
	ctx := t.Context()
	c := e.cl.Database("app").Collection("items")
	cs, err := c.Watch(ctx, mongo.Pipeline{{{Key: "$project", Value: bson.D{{Key: "_id", Value: 0}}}}})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close(ctx)
	if _, err := c.InsertOne(ctx, bson.D{{Key: "_id", Value: 1}}); err != nil {
		t.Fatal(err)
	}
	if cs.Next(ctx) {
		t.Fatalf("event without its _id returned: %s", cs.Current)
	}
	var ce mongo.CommandError
	if !errors.As(cs.Err(), &ce) || ce.Code != 280 || !ce.HasErrorLabel("NonResumableChangeStreamError") {
		t.Fatalf("change stream error %v (labels %v), want 280 NonResumableChangeStreamError", cs.Err(), ce.Labels)
	}
}
