package mongo_test

import (
	"context"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// Ensure that validate answers MongoDB 7's reply for a sound collection
// (counts from the storage check) and NamespaceNotFound for a missing one,
// that dataSize reports the collection's counters by full namespace, zero
// for a missing collection, and that compact answers bytesFreed.
func TestValidateDataSizeCompact(t *testing.T) {
	t.Parallel()
	ts := startServer(t)
	db := ts.client(t).Database("v")
	ctx := context.Background()
	for i := range 4 {
		if _, err := db.Collection("c").InsertOne(ctx, bson.D{{Key: "_id", Value: int32(i)}, {Key: "a", Value: int32(i)}}); err != nil {
			t.Fatal(err)
		}
	}
	mustRun(t, db, bson.D{{Key: "createIndexes", Value: "c"}, {Key: "indexes", Value: bson.A{bson.D{{Key: "key", Value: bson.D{{Key: "a", Value: int32(1)}}}, {Key: "name", Value: "a_1"}}}}})

	r := mustRun(t, db, bson.D{{Key: "validate", Value: "c"}, {Key: "full", Value: true}})
	var got struct {
		NS           string                     `bson:"ns"`
		NRecords     int32                      `bson:"nrecords"`
		NIndexes     int32                      `bson:"nIndexes"`
		KeysPerIndex map[string]int32           `bson:"keysPerIndex"`
		IndexDetails map[string]map[string]bool `bson:"indexDetails"`
		Valid        bool                       `bson:"valid"`
		Repaired     bool                       `bson:"repaired"`
		Errors       []string                   `bson:"errors"`
		Warnings     []string                   `bson:"warnings"`
	}
	if err := bson.Unmarshal(r, &got); err != nil {
		t.Fatal(err)
	}
	if got.NS != "v.c" || got.NRecords != 4 || got.NIndexes != 2 || !got.Valid || got.Repaired ||
		got.KeysPerIndex["_id_"] != 4 || got.KeysPerIndex["a_1"] != 4 ||
		!got.IndexDetails["_id_"]["valid"] || !got.IndexDetails["a_1"]["valid"] ||
		got.Errors == nil || len(got.Errors) != 0 || got.Warnings == nil {
		t.Fatalf("validate = %v", r)
	}
	if st, _ := lookup(t, r, "uuid").Binary(); st != bson.TypeBinaryUUID {
		t.Fatalf("validate uuid subtype %d", st)
	}
	for _, k := range []string{"nInvalidDocuments", "nNonCompliantDocuments", "extraIndexEntries", "missingIndexEntries", "corruptRecords"} {
		lookup(t, r, k)
	}
	cmdError(t, db, bson.D{{Key: "validate", Value: "nope"}}, 26, "NamespaceNotFound", "Collection 'v.nope' does not exist to validate.")
	cmdError(t, db, bson.D{{Key: "validate", Value: "c"}, {Key: "bogus", Value: 1}}, 40415, "IDLUnknownField", "BSON field 'validate.bogus' is an unknown field.")

	st := mustRun(t, db, bson.D{{Key: "collStats", Value: "c"}})
	r = mustRun(t, db, bson.D{{Key: "dataSize", Value: "v.c"}})
	if lookup(t, r, "numObjects").AsInt64() != 4 || lookup(t, r, "size").AsInt64() != lookup(t, st, "size").AsInt64() {
		t.Fatalf("dataSize = %v, collStats %v", r, st)
	}
	lookup(t, r, "millis")
	r = mustRun(t, db, bson.D{{Key: "dataSize", Value: "v.nope"}})
	if lookup(t, r, "numObjects").AsInt64() != 0 || lookup(t, r, "size").AsInt64() != 0 {
		t.Fatalf("dataSize of a missing collection = %v", r)
	}
	cmdError(t, db, bson.D{{Key: "dataSize", Value: "nodot"}}, 73, "InvalidNamespace", "Invalid namespace specified 'nodot'")
	cmdError(t, db, bson.D{{Key: "dataSize", Value: int32(1)}}, 2, "BadValue", "namespace has invalid type int")

	r = mustRun(t, db, bson.D{{Key: "compact", Value: "c"}})
	if lookup(t, r, "bytesFreed").AsInt64() < 0 {
		t.Fatalf("compact = %v", r)
	}
	cmdError(t, db, bson.D{{Key: "compact", Value: "nope"}}, 26, "NamespaceNotFound", "collection does not exist")
}
