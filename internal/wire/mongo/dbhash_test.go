package mongo_test

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// md5Hex is the hex md5 of the concatenated parts.
func md5Hex(parts ...[]byte) string {
	h := md5.New()
	for _, p := range parts {
		h.Write(p)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Ensure that dbHash hashes each collection's documents in _id order and
// the database as the concatenation of the collections' hashes in name
// order, lists capped collections and UUIDs, and honours collections.
func TestDBHash(t *testing.T) {
	t.Parallel()
	ts := startServer(t)
	db := ts.client(t).Database("h")
	ctx := context.Background()
	docs := []bson.D{
		{{Key: "_id", Value: int32(2)}, {Key: "v", Value: "b"}},
		{{Key: "_id", Value: int32(1)}, {Key: "v", Value: "a"}},
	}
	for _, d := range docs {
		if _, err := db.Collection("a").InsertOne(ctx, d); err != nil {
			t.Fatal(err)
		}
	}
	mustRun(t, db, bson.D{{Key: "create", Value: "c"}, {Key: "capped", Value: true}, {Key: "size", Value: int32(4096)}})
	raw1, _ := bson.Marshal(docs[1])
	raw2, _ := bson.Marshal(docs[0])
	wantA := md5Hex(raw1, raw2) // _id order, not insertion order
	wantC := md5Hex()           // an empty collection

	r := mustRun(t, db, bson.D{{Key: "dbHash", Value: 1}})
	if got := lookup(t, r, "collections", "a").StringValue(); got != wantA {
		t.Fatalf("collections.a = %s, want %s (%v)", got, wantA, r)
	}
	if got := lookup(t, r, "collections", "c").StringValue(); got != wantC {
		t.Fatalf("collections.c = %s, want %s", got, wantC)
	}
	if got := lookup(t, r, "md5").StringValue(); got != md5Hex([]byte(wantA), []byte(wantC)) {
		t.Fatalf("md5 = %s", got)
	}
	capped, _ := lookup(t, r, "capped").Array().Values()
	if len(capped) != 1 || capped[0].StringValue() != "c" {
		t.Fatalf("capped = %v", capped)
	}
	if st, _ := lookup(t, r, "uuids", "a").Binary(); st != bson.TypeBinaryUUID {
		t.Fatalf("uuids.a subtype %d", st)
	}
	lookup(t, r, "timeMillis")
	lookup(t, r, "host")

	r = mustRun(t, db, bson.D{{Key: "dbhash", Value: 1}, {Key: "collections", Value: bson.A{"a", "missing"}}})
	if els, _ := lookup(t, r, "collections").Document().Elements(); len(els) != 1 {
		t.Fatalf("collections: [a] hashed %v", r)
	}
	if got := lookup(t, r, "md5").StringValue(); got != md5Hex([]byte(wantA)) {
		t.Fatalf("md5 of [a] = %s", got)
	}
	r = mustRun(t, ts.client(t).Database("empty"), bson.D{{Key: "dbHash", Value: 1}})
	if got := lookup(t, r, "md5").StringValue(); got != md5Hex() {
		t.Fatalf("empty database md5 = %s", got)
	}
	cmdError(t, db, bson.D{{Key: "dbHash", Value: 1}, {Key: "collections", Value: bson.A{1}}}, 8, "UnknownError", "collections entries have to be strings")
	cmdError(t, db, bson.D{{Key: "dbHash", Value: 1}, {Key: "readConcern", Value: bson.D{{Key: "level", Value: "majority"}}}}, 72, "InvalidOptions", "read concern not supported")
}
