package mongo_test

import (
	"context"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// TestLetVariables checks let on find, aggregate, update and findAndModify:
// each value is an expression evaluated once ($literal keeps a dollar
// string), visible to $expr and to pipeline updates as $$name.
func TestLetVariables(t *testing.T) {
	t.Parallel()
	ts := startServer(t)
	ctx := context.Background()
	coll := ts.client(t).Database("test").Collection("let")
	if _, err := coll.InsertMany(ctx, []any{bson.D{{Key: "_id", Value: 1}}, bson.D{{Key: "_id", Value: 2}}}); err != nil {
		t.Fatal(err)
	}
	byID := bson.D{{Key: "$expr", Value: bson.D{{Key: "$eq", Value: bson.A{"$_id", "$$id"}}}}}
	let := bson.D{{Key: "id", Value: 1}, {Key: "x", Value: "foo"}, {Key: "y", Value: bson.D{{Key: "$literal", Value: "$bar"}}}}

	var found []bson.M
	cur, err := coll.Find(ctx, byID, options.Find().SetLet(let))
	if err != nil {
		t.Fatal(err)
	}
	if err := cur.All(ctx, &found); err != nil || len(found) != 1 || found[0]["_id"] != int32(1) {
		t.Fatalf("find with let: %v, %v", found, err)
	}

	cur, err = coll.Aggregate(ctx, bson.A{
		bson.D{{Key: "$match", Value: byID}},
		bson.D{{Key: "$project", Value: bson.D{{Key: "_id", Value: 0}, {Key: "x", Value: "$$x"}, {Key: "y", Value: "$$y"}}}},
	}, options.Aggregate().SetLet(let))
	if err != nil {
		t.Fatal(err)
	}
	var agg []bson.D
	if err := cur.All(ctx, &agg); err != nil {
		t.Fatal(err)
	}
	want := bson.D{{Key: "x", Value: "foo"}, {Key: "y", Value: "$bar"}}
	if len(agg) != 1 || !equalDocs(agg[0], want) {
		t.Fatalf("aggregate with let = %v, want [%v]", agg, want)
	}

	res, err := coll.UpdateOne(ctx, byID, bson.A{bson.D{{Key: "$set", Value: bson.D{{Key: "x", Value: "$$x"}}}}}, options.UpdateOne().SetLet(let))
	if err != nil || res.ModifiedCount != 1 {
		t.Fatalf("pipeline update with let: %v, %v", res, err)
	}
	var after bson.D
	err = coll.FindOneAndUpdate(ctx, byID, bson.A{bson.D{{Key: "$set", Value: bson.D{{Key: "y", Value: "$$y"}}}}},
		options.FindOneAndUpdate().SetLet(let).SetReturnDocument(options.After)).Decode(&after)
	want = bson.D{{Key: "_id", Value: int32(1)}, {Key: "x", Value: "foo"}, {Key: "y", Value: "$bar"}}
	if err != nil || !equalDocs(after, want) {
		t.Fatalf("findAndModify with let = %v, %v; want %v", after, err, want)
	}
	// A pipeline update that replaces the root without _id keeps the _id,
	// and $setField writes a field whose name is dotted or starts with $.
	_, err = coll.UpdateOne(ctx, bson.D{{Key: "_id", Value: 2}}, bson.A{
		bson.D{{Key: "$replaceRoot", Value: bson.D{{Key: "newRoot", Value: bson.D{{Key: "k", Value: 1}}}}}},
		bson.D{{Key: "$replaceWith", Value: bson.D{{Key: "$setField", Value: bson.D{
			{Key: "field", Value: bson.D{{Key: "$literal", Value: "$a.b"}}}, {Key: "value", Value: 7}, {Key: "input", Value: "$$ROOT"},
		}}}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	var two bson.D
	if err := coll.FindOne(ctx, bson.D{{Key: "_id", Value: 2}}).Decode(&two); err != nil {
		t.Fatal(err)
	}
	want = bson.D{{Key: "_id", Value: int32(2)}, {Key: "k", Value: int32(1)}, {Key: "$a.b", Value: int32(7)}}
	if !equalDocs(two, want) {
		t.Fatalf("after the pipeline update: %v, want %v", two, want)
	}
}

func equalDocs(a, b bson.D) bool {
	x, _ := bson.Marshal(a)
	y, _ := bson.Marshal(b)
	return string(x) == string(y)
}

// TestUpdatePipelineUnknownStage checks that an update pipeline naming no
// aggregation stage fails the whole command, while a known stage an update
// may not use fails its statement.
func TestUpdatePipelineUnknownStage(t *testing.T) {
	t.Parallel()
	ts := startServer(t)
	db := ts.client(t).Database("test")
	upd := func(stage bson.D) bson.D {
		return bson.D{{Key: "update", Value: "c"}, {Key: "updates", Value: bson.A{
			bson.D{{Key: "q", Value: bson.D{}}, {Key: "u", Value: bson.A{stage}}},
		}}}
	}
	cmdError(t, db, upd(bson.D{{Key: "$invalidOperator", Value: true}}), 40324, "Location40324", "Unrecognized pipeline stage name: '$invalidOperator'")
	r := run(t, db, upd(bson.D{{Key: "$match", Value: bson.D{}}}))
	if ok := lookup(t, r, "ok").Double(); ok != 1 || lookup(t, r, "writeErrors", "0", "code").Int32() != 72 {
		t.Errorf("$match in an update: %v, want ok: 1 and a write error 72", r)
	}
}
