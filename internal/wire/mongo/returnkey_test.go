package mongo_test

import (
	"context"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	drv "go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

func TestFindReturnKeyAndShowRecordID(t *testing.T) {
	t.Parallel()
	ts := startServer(t)
	ctx := context.Background()
	coll := ts.client(t).Database("test").Collection("rk")
	if _, err := coll.Indexes().CreateOne(ctx, drv.IndexModel{Keys: bson.D{{Key: "x", Value: 1}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := coll.InsertMany(ctx, []any{
		bson.D{{Key: "_id", Value: 1}, {Key: "x", Value: 11}, {Key: "y", Value: "a"}},
		bson.D{{Key: "_id", Value: 2}, {Key: "x", Value: 22}, {Key: "y", Value: "b"}},
	}); err != nil {
		t.Fatal(err)
	}
	all := func(filter bson.D, o *options.FindOptionsBuilder) []bson.Raw {
		t.Helper()
		cur, err := coll.Find(ctx, filter, o)
		if err != nil {
			t.Fatal(err)
		}
		var out []bson.Raw
		if err := cur.All(ctx, &out); err != nil {
			t.Fatal(err)
		}
		return out
	}
	// Sorted by _id, the _id index is scanned: the keys are {_id}.
	got := all(bson.D{}, options.Find().SetSort(bson.D{{Key: "_id", Value: 1}}).SetReturnKey(true))
	if len(got) != 2 || got[0].String() != `{"_id": {"$numberInt":"1"}}` || got[1].String() != `{"_id": {"$numberInt":"2"}}` {
		t.Errorf("returnKey over the _id index = %v", got)
	}
	// A range on x scans the x index: the keys are {x}.
	got = all(bson.D{{Key: "x", Value: bson.D{{Key: "$gt", Value: 15}}}}, options.Find().SetReturnKey(true))
	if len(got) != 1 || got[0].String() != `{"x": {"$numberInt":"22"}}` {
		t.Errorf("returnKey over the x index = %v", got)
	}
	// A collection scan has no index key.
	got = all(bson.D{{Key: "y", Value: "a"}}, options.Find().SetReturnKey(true))
	if len(got) != 1 || got[0].String() != `{}` {
		t.Errorf("returnKey over a collection scan = %v", got)
	}
	// showRecordId adds $recordId to the (projected) document; two
	// documents have different record ids.
	got = all(bson.D{}, options.Find().SetSort(bson.D{{Key: "_id", Value: 1}}).SetShowRecordID(true).SetProjection(bson.D{{Key: "y", Value: 1}}))
	if len(got) != 2 {
		t.Fatalf("showRecordId = %v", got)
	}
	var ids []string
	for _, d := range got {
		if _, err := d.LookupErr("x"); err == nil {
			t.Errorf("projection ignored: %v", d)
		}
		_, rid, ok := d.Lookup("$recordId").BinaryOK()
		if !ok || len(rid) == 0 {
			t.Fatalf("no $recordId in %v", d)
		}
		ids = append(ids, string(rid))
	}
	if ids[0] == ids[1] {
		t.Errorf("two documents share a record id: %v", got)
	}
}

func TestReturnKeyLeavesOutRecordID(t *testing.T) {
	t.Parallel()
	ts := startServer(t)
	ctx := context.Background()
	coll := ts.client(t).Database("test").Collection("rk")
	if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: 1}, {Key: "x", Value: 11}}); err != nil {
		t.Fatal(err)
	}
	var got bson.Raw
	err := coll.FindOne(ctx, bson.D{}, options.FindOne().SetSort(bson.D{{Key: "_id", Value: 1}}).SetReturnKey(true).SetShowRecordID(true)).Decode(&got)
	if err != nil || got.String() != `{"_id": {"$numberInt":"1"}}` {
		t.Fatalf("returnKey with showRecordId = %v, %v; want only the key", got, err)
	}
}
