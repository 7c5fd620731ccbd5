package integration_test

import (
	"errors"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/mayfly/mayfly/integration/harness"
)

// Ensure that the test commands exist only with --set-parameter
// enableTestCommands=1: without it configureFailPoint is CommandNotFound
// and getParameter reports false; with it a failCommand fail point fails
// the named command with its error code and then turns itself off.
func TestMongoEnableTestCommands(t *testing.T) {
	ctx := t.Context()
	off := mongoClient(t, harness.Start(t))
	err := off.Database("admin").RunCommand(ctx, bson.D{{Key: "configureFailPoint", Value: "failCommand"}, {Key: "mode", Value: "off"}}).Err()
	wantCommandError(t, err, 59, "no such command: 'configureFailPoint'")
	var p struct {
		On bool `bson:"enableTestCommands"`
	}
	if err := off.Database("admin").RunCommand(ctx, bson.D{{Key: "getParameter", Value: 1}, {Key: "enableTestCommands", Value: 1}}).Decode(&p); err != nil || p.On {
		t.Fatalf("getParameter enableTestCommands without the flag = %v, %v", p.On, err)
	}

	on := mongoClient(t, harness.Start(t, "--set-parameter", "enableTestCommands=1"))
	admin := on.Database("admin")
	if err := admin.RunCommand(ctx, bson.D{{Key: "getParameter", Value: 1}, {Key: "enableTestCommands", Value: 1}}).Decode(&p); err != nil || !p.On {
		t.Fatalf("getParameter enableTestCommands with the flag = %v, %v", p.On, err)
	}
	if err := admin.RunCommand(ctx, bson.D{
		{Key: "configureFailPoint", Value: "failCommand"},
		{Key: "mode", Value: bson.D{{Key: "times", Value: 1}}},
		{Key: "data", Value: bson.D{{Key: "failCommands", Value: bson.A{"ping"}}, {Key: "errorCode", Value: 2}}},
	}).Err(); err != nil {
		t.Fatal(err)
	}
	err = admin.RunCommand(ctx, bson.D{{Key: "ping", Value: 1}}).Err()
	var ce mongo.CommandError
	if !errors.As(err, &ce) || ce.Code != 2 || ce.Message != "Failing command via 'failCommand' failpoint" {
		t.Fatalf("ping under the fail point: %v", err)
	}
	if err := admin.RunCommand(ctx, bson.D{{Key: "ping", Value: 1}}).Err(); err != nil {
		t.Fatalf("ping after the fail point's one activation: %v", err)
	}
}
