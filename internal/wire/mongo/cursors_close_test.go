package mongo_test

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// Ensure that a cursor closes as MongoDB's does: with the batch that
// reached the end of the results, or that its plan knows is the last (a
// reached limit, a point read, a missing collection, in-memory results);
// a batch full by count leaves it open, and the getMore after the last
// documents answers an empty batch with id 0.
func TestCursorClosesAtTheEnd(t *testing.T) {
	t.Parallel()
	ts := startServer(t)
	db := ts.client(t).Database("closing")
	docs := make([]any, 4)
	for i := range docs {
		docs[i] = bson.D{{Key: "_id", Value: i}}
	}
	if _, err := db.Collection("c").InsertMany(t.Context(), docs); err != nil {
		t.Fatal(err)
	}
	batch := func(r bson.Raw, key string) (int, int64) {
		t.Helper()
		vals, err := lookup(t, r, "cursor", key).Array().Values()
		if err != nil {
			t.Fatal(err)
		}
		return len(vals), lookup(t, r, "cursor", "id").Int64()
	}
	getMore := func(id int64, size int) bson.Raw {
		return mustRun(t, db, bson.D{{Key: "getMore", Value: id}, {Key: "collection", Value: "c"}, {Key: "batchSize", Value: size}})
	}

	// Batches full by count: the cursor stays open past the last document.
	n, id := batch(mustRun(t, db, bson.D{{Key: "find", Value: "c"}, {Key: "batchSize", Value: 2}}), "firstBatch")
	if n != 2 || id == 0 {
		t.Fatalf("first batch %d documents, id %d", n, id)
	}
	if n, next := batch(getMore(id, 2), "nextBatch"); n != 2 || next != id {
		t.Fatalf("getMore with the last 2 documents: %d documents, id %d", n, next)
	}
	if n, next := batch(getMore(id, 2), "nextBatch"); n != 0 || next != 0 {
		t.Fatalf("getMore after the last documents: %d documents, id %d, want an empty batch and id 0", n, next)
	}

	// A batch that reaches the end closes the cursor.
	_, id = batch(mustRun(t, db, bson.D{{Key: "find", Value: "c"}, {Key: "batchSize", Value: 3}}), "firstBatch")
	if n, next := batch(getMore(id, 2), "nextBatch"); n != 1 || next != 0 {
		t.Fatalf("getMore reaching the end: %d documents, id %d", n, next)
	}

	for _, tc := range []struct {
		name string
		cmd  bson.D
		n    int
		open bool
	}{
		{"limit reached", bson.D{{Key: "find", Value: "c"}, {Key: "limit", Value: 2}, {Key: "batchSize", Value: 2}}, 2, false},
		{"point read", bson.D{{Key: "find", Value: "c"}, {Key: "filter", Value: bson.D{{Key: "_id", Value: 1}}}, {Key: "batchSize", Value: 1}}, 1, false},
		{"batchSize 0", bson.D{{Key: "find", Value: "c"}, {Key: "batchSize", Value: 0}}, 0, true},
		{"batchSize 0 on a missing collection", bson.D{{Key: "find", Value: "none"}, {Key: "batchSize", Value: 0}}, 0, false},
		{"every collection listed", bson.D{{Key: "listCollections", Value: 1}, {Key: "cursor", Value: bson.D{{Key: "batchSize", Value: 1}}}}, 1, false},
	} {
		n, id := batch(mustRun(t, db, tc.cmd), "firstBatch")
		if n != tc.n || (id != 0) != tc.open {
			t.Errorf("%s: %d documents, id %d; want %d documents, open %v", tc.name, n, id, tc.n, tc.open)
		}
	}
}
