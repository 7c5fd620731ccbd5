package integration_test

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/mayfly/mayfly/integration/harness"
)

// Ensure that create of an existing collection with the same options
// succeeds, as in MongoDB 7.0, and with other options fails with
// NamespaceExists (48) naming the existing collection's UUID and options.
func TestMongoCreateExistingCollection(t *testing.T) {
	s := harness.Start(t)
	cl := mongoClient(t, s)
	ctx := t.Context()
	db := cl.Database("app")
	capped := options.CreateCollection().SetCapped(true).SetSizeInBytes(4096)
	if err := db.CreateCollection(ctx, "logs", capped); err != nil {
		t.Fatal(err)
	}
	if err := db.CreateCollection(ctx, "logs", capped); err != nil {
		t.Fatalf("create again with the same options: %v", err)
	}
	err := db.RunCommand(ctx, bson.D{{Key: "create", Value: "logs"}}).Err()
	wantCommandErrorMatching(t, err, 48,
		`^namespace app\.logs already exists, but with different options: \{ uuid: UUID\("[0-9a-f-]{36}"\), capped: true, size: 4096 \}$`)
}
