package integration_test

import (
	"slices"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/mayfly/mayfly/integration/harness"
)

// Ensure that a drop or a rename run on the primary kills the cursors open
// on that collection on a secondary, as it kills the primary's own: once
// the secondary has applied it, the next getMore there fails with
// QueryPlanKilled (175) and MongoDB's message, and a cursor on another
// collection is untouched.
func TestReplSetSecondaryCursorsDieWithTheirCollection(t *testing.T) {
	set := harness.StartSet(t, "rs0", 3)
	p := waitPrimary(t, set, 20*time.Second)
	ctx := t.Context()
	primary := setClient(t, set)
	for _, name := range []string{"dropped", "renamed", "kept"} {
		fillCollection(t, primary.Database("inval").Collection(name), 10)
	}
	sec := memberClient(t, set.Members[(p+1)%3]).Database("inval")
	for _, name := range []string{"dropped", "renamed", "kept"} {
		waitCount(t, sec.Collection(name), 10)
	}
	dropped, renamed, kept := openCursor(t, sec, "dropped", nil), openCursor(t, sec, "renamed", nil), openCursor(t, sec, "kept", nil)

	if err := primary.Database("inval").Collection("dropped").Drop(ctx); err != nil {
		t.Fatal(err)
	}
	if err := primary.Database("admin").RunCommand(ctx, bson.D{{Key: "renameCollection", Value: "inval.renamed"}, {Key: "to", Value: "inval.moved"}}).Err(); err != nil {
		t.Fatal(err)
	}
	eventually(t, 10*time.Second, "the secondary applies the drop and the rename", func() bool {
		names, err := sec.ListCollectionNames(ctx, bson.D{})
		slices.Sort(names)
		return err == nil && slices.Equal(names, []string{"kept", "moved"})
	})

	uuid := `[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`
	wantCommandErrorMatching(t, firstGetMoreError(t, sec, dropped, "dropped"), 175, `^collection dropped\. UUID `+uuid+`$`)
	wantCommandErrorMatching(t, firstGetMoreError(t, sec, renamed, "renamed"), 175, `^collection renamed from 'inval\.renamed' to 'inval\.moved'\. UUID `+uuid+`$`)
	if err := sec.RunCommand(ctx, bson.D{{Key: "getMore", Value: kept}, {Key: "collection", Value: "kept"}}).Err(); err != nil {
		t.Fatalf("getMore on a collection neither dropped nor renamed: %v", err)
	}
}

// firstGetMoreError runs getMore on cursor id of collection coll until one
// fails and returns that error. A cursor of 10 documents in batches of 2
// allows the few getMores that a member answers between applying a drop
// and killing its cursors; more than that fails the test.
func firstGetMoreError(t *testing.T, db *mongo.Database, id int64, coll string) error {
	t.Helper()
	for range 3 {
		if err := db.RunCommand(t.Context(), bson.D{{Key: "getMore", Value: id}, {Key: "collection", Value: coll}, {Key: "batchSize", Value: 2}}).Err(); err != nil {
			return err
		}
	}
	t.Fatalf("getMore on cursor %d of %s still answers after its collection went", id, coll)
	return nil
}
