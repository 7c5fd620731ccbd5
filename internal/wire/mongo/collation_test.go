package mongo_test

import (
	"context"
	"slices"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	drv "go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// TestCollation checks that a case-insensitive collation (strength 2)
// applies to find, count, distinct, aggregate, update, delete and
// findAndModify, that an index on the field does not change the result,
// and that a bad collation gets MongoDB's error.
func TestCollation(t *testing.T) {
	t.Parallel()
	ts := startServer(t)
	ctx := context.Background()
	db := ts.client(t).Database("test")
	coll := db.Collection("coll")
	if _, err := coll.Indexes().CreateOne(ctx, drv.IndexModel{Keys: bson.D{{Key: "x", Value: 1}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := coll.InsertMany(ctx, []any{
		bson.D{{Key: "_id", Value: 1}, {Key: "x", Value: "ping"}},
		bson.D{{Key: "_id", Value: 2}, {Key: "x", Value: "PING"}},
		bson.D{{Key: "_id", Value: 3}, {Key: "x", Value: "pong"}},
	}); err != nil {
		t.Fatal(err)
	}
	ci := &options.Collation{Locale: "en_US", Strength: 2}
	ping := bson.D{{Key: "x", Value: "PiNg"}}

	ids := func(cur interface {
		All(context.Context, any) error
	}, err error) []int32 {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		var docs []struct {
			ID int32 `bson:"_id"`
		}
		if err := cur.All(ctx, &docs); err != nil {
			t.Fatal(err)
		}
		var out []int32
		for _, d := range docs {
			out = append(out, d.ID)
		}
		slices.Sort(out)
		return out
	}
	if got := ids(coll.Find(ctx, ping, options.Find().SetCollation(ci))); !slices.Equal(got, []int32{1, 2}) {
		t.Errorf("find with collation = %v, want [1 2]", got)
	}
	if got := ids(coll.Find(ctx, ping)); len(got) != 0 {
		t.Errorf("find without collation = %v, want none", got)
	}
	if got := ids(coll.Find(ctx, bson.D{{Key: "x", Value: bson.D{{Key: "$in", Value: bson.A{"PONG"}}}}}, options.Find().SetCollation(ci))); !slices.Equal(got, []int32{3}) {
		t.Errorf("$in with collation = %v, want [3]", got)
	}
	if got := ids(coll.Aggregate(ctx, bson.A{bson.D{{Key: "$match", Value: ping}}}, options.Aggregate().SetCollation(ci))); !slices.Equal(got, []int32{1, 2}) {
		t.Errorf("aggregate with collation = %v, want [1 2]", got)
	}
	if n, err := coll.CountDocuments(ctx, ping, options.Count().SetCollation(ci)); err != nil || n != 2 {
		t.Errorf("count with collation = %d, %v; want 2", n, err)
	}
	res := coll.Distinct(ctx, "x", bson.D{}, options.Distinct().SetCollation(ci))
	var vals []string
	if err := res.Decode(&vals); err != nil || len(vals) != 2 {
		t.Errorf("distinct with collation = %v, %v; want one of ping/PING and pong", vals, err)
	}
	var before bson.D
	if err := coll.FindOneAndUpdate(ctx, bson.D{{Key: "x", Value: "PONG"}}, bson.D{{Key: "$set", Value: bson.D{{Key: "y", Value: 1}}}},
		options.FindOneAndUpdate().SetCollation(ci)).Decode(&before); err != nil {
		t.Errorf("findAndModify with collation: %v", err)
	}
	if r, err := coll.UpdateMany(ctx, ping, bson.D{{Key: "$set", Value: bson.D{{Key: "y", Value: 2}}}}, options.UpdateMany().SetCollation(ci)); err != nil || r.MatchedCount != 2 {
		t.Errorf("updateMany with collation: %v, %v; want 2 matched", r, err)
	}
	if r, err := coll.DeleteOne(ctx, ping, options.DeleteOne().SetCollation(ci)); err != nil || r.DeletedCount != 1 {
		t.Errorf("deleteOne with collation: %v, %v; want 1 deleted", r, err)
	}
	cmdError(t, db, bson.D{{Key: "find", Value: "coll"}, {Key: "collation", Value: bson.D{{Key: "strength", Value: 2}}}},
		40414, "IDLFailedToParse", "BSON field 'Collation.locale' is missing but a required field")
	cmdError(t, db, bson.D{{Key: "find", Value: "coll"}, {Key: "collation", Value: bson.D{{Key: "locale", Value: "en"}, {Key: "strength", Value: 9}}}},
		2, "BadValue", "Enumeration value '9' for field 'strength' is not a valid value.")
}
