package integration_test

import (
	"errors"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/mayfly/mayfly/integration/harness"
)

// Ensure that what needs a replica set answers as a MongoDB standalone
// does: the replica set commands fail with NoReplicationEnabled, through
// the Go driver and mongosh. Change streams, which MongoDB serves only on
// a replica set, are served (mongo_changestream_test.go).
func TestMongoStandaloneReplicaSetFeatures(t *testing.T) {
	s := harness.Start(t)
	cl := mongoClient(t, s)
	ctx := t.Context()
	admin := cl.Database("admin")

	for _, name := range []string{"replSetGetStatus", "replSetGetConfig", "replSetGetRBID", "replSetStepDown", "replSetFreeze", "replSetReconfig", "replSetMaintenance", "replSetSyncFrom"} {
		err := admin.RunCommand(ctx, bson.D{{Key: name, Value: 1}}).Err()
		wantCommandError(t, err, 76, "not running with --replSet")
		var ce mongo.CommandError
		if errors.As(err, &ce); ce.Name != "NoReplicationEnabled" {
			t.Fatalf("%s codeName %q", name, ce.Name)
		}
	}
	wantCommandError(t, admin.RunCommand(ctx, bson.D{{Key: "replSetInitiate", Value: bson.D{}}}).Err(), 76, "This node was not started with replication enabled.")
	wantCommandError(t, cl.Database("app").RunCommand(ctx, bson.D{{Key: "replSetGetStatus", Value: 1}}).Err(), 13, "replSetGetStatus may only be run against the admin database.")

	out := mongosh(t, s, "app", "", "--quiet", "--eval", `
for (const f of [() => rs.status(), () => rs.conf()]) {
  try { f(); print("no error"); } catch (e) { print("error", e.codeName, e.code, e.message); }
}`)
	for _, want := range []string{
		"error NoReplicationEnabled 76 not running with --replSet",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("mongosh output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "no error") {
		t.Errorf("mongosh: a replica set feature succeeded:\n%s", out)
	}
}
