package integration_test

import (
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/integration/harness"
)

// runMongoNodeScript runs testdata/mongonode/<script> against s with the
// Node MongoDB driver and mongoose that the test command installs.
func runMongoNodeScript(t *testing.T, s *harness.Server, script string, limit time.Duration) {
	t.Helper()
	modules, node := nodeModules(t, "MAYFLY_MONGONODE_MODULES", "mongodb", "mongoose")
	runNodeScript(t, s, modules, node, "mongonode", script, limit)
}

// TestMongoose drives mongoose: schema indexes (a TTL index from `expires`,
// a unique index), CRUD, a duplicate key and a session that expires. The
// server's clock is manual, so the session's expiry is exact.
func TestMongoose(t *testing.T) {
	s := harness.Start(t, "--manual-clock")
	runMongoNodeScript(t, s, "mongoose_test.js", 2*time.Minute)
}

// TestNodeDriverAuth runs the Node driver and mongoose with credentials in
// the URI against mayfly --auth, after the first user is created through the
// localhost exception and an application user from it.
func TestNodeDriverAuth(t *testing.T) {
	s := harness.Start(t, "--auth", "--resp-addr", "")
	ctx := t.Context()
	anon := mongoClient(t, s)
	if err := anon.Database("admin").RunCommand(ctx, bson.D{{Key: "createUser", Value: "admin"},
		{Key: "pwd", Value: "root secret"}, {Key: "roles", Value: bson.A{"root"}}}).Err(); err != nil {
		t.Fatalf("first user through the localhost exception: %v", err)
	}
	root := credClient(t, s, "admin", "root%20secret", "admin", "")
	if err := root.Database("shop").RunCommand(ctx, bson.D{{Key: "createUser", Value: "app"},
		{Key: "pwd", Value: "app secret"}, {Key: "roles", Value: bson.A{"readWrite"}}}).Err(); err != nil {
		t.Fatal(err)
	}
	runMongoNodeScript(t, s, "driver_auth_test.js", 2*time.Minute)
}
