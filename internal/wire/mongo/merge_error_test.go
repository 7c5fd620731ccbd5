package mongo_test

import (
	"context"
	"errors"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	drv "go.mongodb.org/mongo-driver/v2/mongo"
)

// TestMergeDuplicateKeyError checks that $merge with whenMatched: "fail"
// reports the duplicate's keyPattern and keyValue, as a DuplicateKey error
// of an insert does.
func TestMergeDuplicateKeyError(t *testing.T) {
	t.Parallel()
	ts := startServer(t)
	ctx := context.Background()
	db := ts.client(t).Database("test")
	if _, err := db.Collection("target").InsertOne(ctx, bson.D{{Key: "_id", Value: 2}, {Key: "x", Value: 1}}); err != nil {
		t.Fatal(err)
	}
	_, err := db.Aggregate(ctx, bson.A{
		bson.D{{Key: "$documents", Value: bson.A{bson.D{{Key: "_id", Value: 2}, {Key: "x", Value: 1}}}}},
		bson.D{{Key: "$merge", Value: bson.D{{Key: "into", Value: "target"}, {Key: "whenMatched", Value: "fail"}}}},
	})
	var ce drv.CommandError
	if !errors.As(err, &ce) || ce.Code != 11000 {
		t.Fatalf("$merge onto an existing _id: %v, want DuplicateKey", err)
	}
	if kp, _ := ce.Raw.LookupErr("keyPattern"); kp.String() != `{"_id": {"$numberInt":"1"}}` {
		t.Errorf("keyPattern = %v", kp)
	}
	if kv, _ := ce.Raw.LookupErr("keyValue"); kv.String() != `{"_id": {"$numberInt":"2"}}` {
		t.Errorf("keyValue = %v", kv)
	}
}
