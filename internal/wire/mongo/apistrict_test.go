package mongo_test

import (
	"context"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	drv "go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

func TestAPIStrict(t *testing.T) {
	t.Parallel()
	ts := startServer(t, withTestCommands)
	ctx := context.Background()
	strict, err := drv.Connect(options.Client().ApplyURI("mongodb://" + ts.addr + "/?directConnection=true").
		SetServerAPIOptions(options.ServerAPI(options.ServerAPIVersion1).SetStrict(true)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { strict.Disconnect(context.Background()) })
	coll := strict.Database("test").Collection("c")
	if _, err := coll.InsertOne(ctx, bson.D{{Key: "x", Value: 1}}); err != nil {
		t.Fatalf("insert is in API version 1: %v", err)
	}
	err = coll.Distinct(ctx, "x", bson.D{}).Err()
	wantError(t, err, 323, "APIStrictError", "Provided apiStrict:true, but the command distinct is not in API Version 1. Information on supported commands and migrations in API Version 1 can be found at https://dochub.mongodb.org/core/manual-versioning")
	_, err = strict.Database("admin").Aggregate(ctx, bson.A{bson.D{{Key: "$listLocalSessions", Value: bson.D{}}}})
	wantError(t, err, 323, "APIStrictError", "$listLocalSessions is not allowed with 'apiStrict: true' in API Version 1")
	cmdError(t, strict.Database("test"), bson.D{{Key: "testVersion2", Value: 1}}, 323, "APIStrictError", "")
	// Without apiStrict the same commands run.
	plain := ts.client(t)
	if err := plain.Database("test").Collection("c").Distinct(ctx, "x", bson.D{}).Err(); err != nil {
		t.Fatalf("distinct without apiStrict: %v", err)
	}
	mustRun(t, plain.Database("test"), bson.D{{Key: "testVersion2", Value: 1}})
}

func TestListLocalSessions(t *testing.T) {
	t.Parallel()
	ts := startServer(t)
	ctx := context.Background()
	cl := ts.client(t)
	coll := cl.Database("test").Collection("c")
	docs := make([]any, 5)
	for i := range docs {
		docs[i] = bson.D{{Key: "_id", Value: i}}
	}
	if _, err := coll.InsertMany(ctx, docs); err != nil {
		t.Fatal(err)
	}
	sess, err := cl.StartSession()
	if err != nil {
		t.Fatal(err)
	}
	defer sess.EndSession(ctx)
	// A cursor left open in the session keeps it known to the server.
	err = drv.WithSession(ctx, sess, func(sctx context.Context) error {
		_, err := coll.Find(sctx, bson.D{}, options.Find().SetBatchSize(1))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	cur, err := cl.Database("admin").Aggregate(ctx, bson.A{
		bson.D{{Key: "$listLocalSessions", Value: bson.D{}}},
		bson.D{{Key: "$project", Value: bson.D{{Key: "_id.id", Value: 1}}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	var got []bson.Raw
	if err := cur.All(ctx, &got); err != nil {
		t.Fatal(err)
	}
	_, want := sess.ID().Lookup("id").Binary()
	found := false
	for _, d := range got {
		if _, id, ok := d.Lookup("_id", "id").BinaryOK(); ok && string(id) == string(want) {
			found = true
		}
	}
	if !found || len(got) < 2 {
		t.Fatalf("$listLocalSessions = %v; want the cursor's session and the command's own", got)
	}
	_, err = cl.Database("admin").Aggregate(ctx, bson.A{bson.D{{Key: "$listLocalSessions", Value: bson.D{{Key: "nope", Value: 1}}}}})
	wantError(t, err, 40415, "IDLUnknownField", "BSON field '$listLocalSessions.nope' is an unknown field.")
}
