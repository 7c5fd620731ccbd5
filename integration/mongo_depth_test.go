package integration_test

import (
	"bytes"
	"errors"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/mayfly/mayfly/integration/harness"
)

// nestedDoc returns a document of the given number of levels (1: {x: 1}),
// its innermost value being leaf.
func nestedDoc(levels int, leaf any) bson.D {
	d := bson.D{{Key: "x", Value: leaf}}
	for i := 1; i < levels; i++ {
		d = bson.D{{Key: "a", Value: d}}
	}
	return d
}

// wantWriteError asserts a write failed with one write error of that code
// and message.
func wantWriteError(t *testing.T, err error, code int, msg string) {
	t.Helper()
	var we mongo.WriteException
	if !errors.As(err, &we) || len(we.WriteErrors) != 1 || we.WriteErrors[0].Code != code || we.WriteErrors[0].Message != msg {
		t.Fatalf("error = %v, want write error %d %q", err, code, msg)
	}
}

// Ensure that documents nested deeper than MongoDB stores (180 levels at
// the default maxBSONDepth of 200) are refused on insert, update,
// replacement and upsert with MongoDB's Overflow errors, and that the
// deepest allowed ones round-trip.
func TestMongoDocumentNestingLimit(t *testing.T) {
	s := harness.Start(t)
	c := mongoClient(t, s).Database("app").Collection("deep")
	ctx := t.Context()
	withID := func(id int, d bson.D) bson.D { return append(bson.D{{Key: "_id", Value: id}}, d...) }

	for _, levels := range []int{100, 150, 180} {
		if _, err := c.InsertOne(ctx, withID(levels, nestedDoc(levels, 1))); err != nil {
			t.Fatalf("insert of %d levels: %v", levels, err)
		}
	}
	// An empty document or array past the limit does not count.
	if _, err := c.InsertOne(ctx, withID(1, nestedDoc(180, bson.D{}))); err != nil {
		t.Fatalf("insert of 180 levels and an empty document: %v", err)
	}
	if _, err := c.InsertOne(ctx, withID(2, nestedDoc(180, bson.A{}))); err != nil {
		t.Fatalf("insert of 180 levels and an empty array: %v", err)
	}
	var got bson.Raw
	if err := c.FindOne(ctx, bson.D{{Key: "_id", Value: 180}}).Decode(&got); err != nil {
		t.Fatal(err)
	}
	if want, _ := bson.Marshal(withID(180, nestedDoc(180, 1))); !bytes.Equal(got, want) {
		t.Fatalf("the 180-level document did not round-trip")
	}

	const insertMsg = "cannot insert document because it exceeds 180 levels of nesting"
	const updateMsg = "Document exceeds maximum nesting depth of 180"
	_, err := c.InsertOne(ctx, withID(181, nestedDoc(181, 1)))
	wantWriteError(t, err, 15, insertMsg)
	_, err = c.InsertOne(ctx, withID(182, nestedDoc(180, bson.A{1})))
	wantWriteError(t, err, 15, insertMsg)

	_, err = c.UpdateOne(ctx, bson.D{{Key: "_id", Value: 150}}, bson.D{{Key: "$set", Value: bson.D{{Key: "deep", Value: nestedDoc(180, 1)}}}})
	wantWriteError(t, err, 15, updateMsg)
	_, err = c.ReplaceOne(ctx, bson.D{{Key: "_id", Value: 150}}, nestedDoc(181, 1))
	wantWriteError(t, err, 15, updateMsg)
	_, err = c.UpdateOne(ctx, bson.D{{Key: "_id", Value: "new"}}, bson.D{{Key: "$set", Value: nestedDoc(181, 1)}}, options.UpdateOne().SetUpsert(true))
	wantWriteError(t, err, 15, updateMsg)
	if n, err := c.CountDocuments(ctx, bson.D{}); err != nil || n != 5 {
		t.Fatalf("count %d %v, want the 5 documents within the limit", n, err)
	}
	// Within the limit, updates work.
	if _, err := c.UpdateOne(ctx, bson.D{{Key: "_id", Value: 150}}, bson.D{{Key: "$set", Value: bson.D{{Key: "deep", Value: nestedDoc(179, 1)}}}}); err != nil {
		t.Fatalf("update to 180 levels: %v", err)
	}
}
