package integration_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/event"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/mayfly/mayfly/integration/harness"
)

// Ensure that the onPrimaryTransactionalWrite fail point acts on retryable
// writes as MongoDB's does: without data it applies the write and closes
// the connection, so the driver's retry gets the recorded reply and the
// document is inserted once; with failBeforeCommitExceptionCode the write
// is not applied, so one activation is retried into success and two leave
// the collection unchanged with an error.
func TestMongoOnPrimaryTransactionalWrite(t *testing.T) {
	set := harness.StartSet(t, "rs0", 1, "--set-parameter", "enableTestCommands=1")
	set.Members[0].WaitLog(t, "replica set member is primary", 20*time.Second)
	var inserts atomic.Int32
	mon := &event.CommandMonitor{Started: func(_ context.Context, e *event.CommandStartedEvent) {
		if e.CommandName == "insert" {
			inserts.Add(1)
		}
	}}
	cl, err := mongo.Connect(options.Client().ApplyURI(set.MongoURI()).SetMonitor(mon)) // no timeout: with one the driver retries until it passes
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cl.Disconnect(context.Background()) })
	ctx := t.Context()
	c := cl.Database("app").Collection("items")

	for i, tc := range []struct {
		times      int
		failBefore bool
		wantErr    bool
	}{{1, false, false}, {1, true, false}, {2, true, true}} {
		cmd := bson.D{{Key: "configureFailPoint", Value: "onPrimaryTransactionalWrite"},
			{Key: "mode", Value: bson.D{{Key: "times", Value: tc.times}}}}
		if tc.failBefore {
			cmd = append(cmd, bson.E{Key: "data", Value: bson.D{{Key: "failBeforeCommitExceptionCode", Value: 1}}})
		}
		if err := cl.Database("admin").RunCommand(ctx, cmd).Err(); err != nil {
			t.Fatal(err)
		}
		inserts.Store(0)
		_, err := c.InsertOne(ctx, bson.D{{Key: "_id", Value: i}})
		if (err != nil) != tc.wantErr {
			t.Fatalf("case %d: insert error %v, want error %v", i, err, tc.wantErr)
		}
		if n := inserts.Load(); n != 2 {
			t.Fatalf("case %d: %d insert commands sent, want the first and its retry", i, n)
		}
		n, err := c.CountDocuments(ctx, bson.D{{Key: "_id", Value: i}})
		if err != nil {
			t.Fatal(err)
		}
		if want := map[bool]int64{false: 1, true: 0}[tc.wantErr]; n != want {
			t.Fatalf("case %d: %d documents, want %d", i, n, want)
		}
	}
}

// Ensure that failCommand acts on a retried write answered from its record
// too: a retryable writeConcernError returned twice reaches the caller
// after the driver's one retry, with the document inserted once.
func TestMongoFailCommandOnRetriedWrite(t *testing.T) {
	set := harness.StartSet(t, "rs0", 1, "--set-parameter", "enableTestCommands=1")
	set.Members[0].WaitLog(t, "replica set member is primary", 20*time.Second)
	cl, err := mongo.Connect(options.Client().ApplyURI(set.MongoURI()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cl.Disconnect(context.Background()) })
	ctx := t.Context()
	cmd := bson.D{{Key: "configureFailPoint", Value: "failCommand"},
		{Key: "mode", Value: bson.D{{Key: "times", Value: 2}}},
		{Key: "data", Value: bson.D{{Key: "failCommands", Value: bson.A{"insert"}},
			{Key: "errorLabels", Value: bson.A{"RetryableWriteError"}},
			{Key: "writeConcernError", Value: bson.D{{Key: "code", Value: 91}, {Key: "errmsg", Value: "Replication is being shut down"}}}}}}
	if err := cl.Database("admin").RunCommand(ctx, cmd).Err(); err != nil {
		t.Fatal(err)
	}
	c := cl.Database("app").Collection("items")
	_, err = c.InsertOne(ctx, bson.D{{Key: "_id", Value: 1}})
	var we mongo.WriteException
	if !errors.As(err, &we) || we.WriteConcernError == nil || we.WriteConcernError.Code != 91 {
		t.Fatalf("insert after two writeConcernErrors: %v", err)
	}
	if n, err := c.CountDocuments(ctx, bson.D{}); err != nil || n != 1 {
		t.Fatalf("documents after the retried insert: %d, %v", n, err)
	}
}
