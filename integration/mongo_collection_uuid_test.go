package integration_test

import (
	"bytes"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/integration/harness"
)

// collectionUUID returns listCollections' info.uuid of db.coll and checks
// the entry's idIndex.
func collectionUUID(t *testing.T, s *harness.Server, db, coll string) []byte {
	t.Helper()
	cur, err := mongoClient(t, s).Database(db).ListCollections(t.Context(), bson.D{{Key: "name", Value: coll}})
	if err != nil {
		t.Fatal(err)
	}
	var entries []bson.Raw
	if err := cur.All(t.Context(), &entries); err != nil || len(entries) != 1 {
		t.Fatalf("listCollections %s: %v %v", coll, entries, err)
	}
	sub, data, ok := entries[0].Lookup("info", "uuid").BinaryOK()
	if !ok || sub != bson.TypeBinaryUUID || len(data) != 16 {
		t.Fatalf("info.uuid of %v", entries[0])
	}
	if name := entries[0].Lookup("idIndex", "name").StringValue(); name != "_id_" {
		t.Fatalf("idIndex of %v", entries[0])
	}
	return data
}

// Ensure that a collection's UUID (listCollections info.uuid) is kept in
// the catalog: the same after a restart, new for a collection created
// again under the same name.
func TestMongoCollectionUUIDStable(t *testing.T) {
	dir := t.TempDir()
	s := harness.StartDir(t, dir)
	if err := mongoClient(t, s).Database("app").CreateCollection(t.Context(), "c"); err != nil {
		t.Fatal(err)
	}
	first := collectionUUID(t, s, "app", "c")
	if err := s.Stop(t.Context()); err != nil {
		t.Fatal(err)
	}
	s = harness.StartDir(t, dir)
	if again := collectionUUID(t, s, "app", "c"); !bytes.Equal(first, again) {
		t.Fatalf("uuid after restart %x, was %x", again, first)
	}
	db := mongoClient(t, s).Database("app")
	if err := db.Collection("c").Drop(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := db.CreateCollection(t.Context(), "c"); err != nil {
		t.Fatal(err)
	}
	if fresh := collectionUUID(t, s, "app", "c"); bytes.Equal(first, fresh) {
		t.Fatal("a collection created again kept the old uuid")
	}
}
