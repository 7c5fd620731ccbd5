package integration_test

import (
	"context"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

// Ensure that an insert's event shows the document as inserted when the
// document was changed or deleted before the stream read it: by the same
// transaction, by a later write, after many inserts in one insertMany, and
// when the collection was dropped.
func TestChangeStreamInsertShowsTheInsertedDocument(t *testing.T) {
	e := startTTL(t, "--change-streams")
	ctx := t.Context()
	c := e.cl.Database("inserts").Collection("c")
	cs := watch(t, c, nil)
	err := e.cl.UseSession(ctx, func(sctx context.Context) error {
		_, err := mongo.SessionFromContext(sctx).WithTransaction(sctx, func(sctx context.Context) (any, error) {
			if _, err := c.InsertOne(sctx, bson.D{{Key: "_id", Value: 1}, {Key: "v", Value: 10}}); err != nil {
				return nil, err
			}
			if _, err := c.UpdateOne(sctx, bson.D{{Key: "_id", Value: 1}}, bson.D{{Key: "$set", Value: bson.D{{Key: "v", Value: 11}}}}); err != nil {
				return nil, err
			}
			if _, err := c.InsertOne(sctx, bson.D{{Key: "_id", Value: 2}, {Key: "v", Value: 20}}); err != nil {
				return nil, err
			}
			_, err := c.DeleteOne(sctx, bson.D{{Key: "_id", Value: 2}})
			return nil, err
		})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	many := make([]any, 50)
	for i := range many {
		many[i] = bson.D{{Key: "_id", Value: 100 + i}, {Key: "v", Value: 1000 + i}}
	}
	if _, err := c.InsertMany(ctx, many); err != nil {
		t.Fatal(err)
	}
	if _, err := c.UpdateOne(ctx, bson.D{{Key: "_id", Value: 120}}, bson.D{{Key: "$set", Value: bson.D{{Key: "v", Value: -1}}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.DeleteOne(ctx, bson.D{{Key: "_id", Value: 149}}); err != nil {
		t.Fatal(err)
	}
	if err := c.Drop(ctx); err != nil {
		t.Fatal(err)
	}

	check := func(ev bson.Raw, id, v int32) {
		t.Helper()
		if str(ev, "operationType") != "insert" || i32(ev, "documentKey", "_id") != id || i32(ev, "fullDocument", "_id") != id || i32(ev, "fullDocument", "v") != v || str(ev, "ns", "coll") != "c" {
			t.Fatalf("want the insert of {_id: %d, v: %d}, got %s", id, v, ev)
		}
	}
	evs := nextOps(t, "transaction", cs, "insert", "update", "insert", "delete")
	check(evs[0], 1, 10)
	check(evs[2], 2, 20)
	for i := range int32(50) {
		check(nextEvent(t, cs), 100+i, 1000+i)
	}
	nextOps(t, "after the insertMany", cs, "update", "delete", "drop", "invalidate")
}
