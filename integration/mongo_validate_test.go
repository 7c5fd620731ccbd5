package integration_test

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/mayfly/mayfly/integration/harness"
)

// Ensure that, against the real server, validate (through the Go driver
// and through mongosh's collection.validate), dataSize and compact
// answer MongoDB 7's replies for a collection with a secondary index,
// before and after its documents are deleted.
func TestMongoValidateDataSizeCompact(t *testing.T) {
	s := harness.Start(t)
	cl := mongoClient(t, s)
	ctx := t.Context()
	db := cl.Database("vd")
	docs := make([]any, 50)
	for i := range docs {
		docs[i] = bson.D{{Key: "_id", Value: i}, {Key: "n", Value: i}}
	}
	if _, err := db.Collection("c").InsertMany(ctx, docs); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Collection("c").Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "n", Value: 1}}}); err != nil {
		t.Fatal(err)
	}
	var v struct {
		Valid        bool             `bson:"valid"`
		NRecords     int64            `bson:"nrecords"`
		KeysPerIndex map[string]int64 `bson:"keysPerIndex"`
	}
	if err := db.RunCommand(ctx, bson.D{{Key: "validate", Value: "c"}, {Key: "full", Value: true}}).Decode(&v); err != nil {
		t.Fatal(err)
	}
	if !v.Valid || v.NRecords != 50 || v.KeysPerIndex["_id_"] != 50 || v.KeysPerIndex["n_1"] != 50 {
		t.Fatalf("validate = %+v", v)
	}
	var ds struct {
		Size       int64 `bson:"size"`
		NumObjects int64 `bson:"numObjects"`
	}
	if err := db.RunCommand(ctx, bson.D{{Key: "dataSize", Value: "vd.c"}}).Decode(&ds); err != nil {
		t.Fatal(err)
	}
	if ds.NumObjects != 50 || ds.Size <= 0 {
		t.Fatalf("dataSize = %+v", ds)
	}
	if _, err := db.Collection("c").DeleteMany(ctx, bson.D{}); err != nil {
		t.Fatal(err)
	}
	r, err := db.RunCommand(ctx, bson.D{{Key: "compact", Value: "c"}}).Raw()
	if err != nil {
		t.Fatal(err)
	}
	if n, ok := r.Lookup("bytesFreed").AsInt64OK(); !ok || n < 0 {
		t.Fatalf("compact = %v", r)
	}
	out := mongosh(t, s, "vd", `const r = db.c.validate({full: true}); print("VALID", r.valid, r.nrecords, r.nIndexes, JSON.stringify(r.errors))`+"\n", "--quiet")
	wantOutput(t, out, "VALID true 0 2 []")
}
