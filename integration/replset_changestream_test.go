package integration_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/mayfly/mayfly/integration/harness"
)

// nextInsertID reads the next event of cs, which must be an insert, and
// returns its document's _id.
func nextInsertID(t *testing.T, cs *mongo.ChangeStream) int32 {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	if !cs.Next(ctx) {
		t.Fatalf("no change event: %v", cs.Err())
	}
	var ev struct {
		Op  string `bson:"operationType"`
		Key struct {
			ID int32 `bson:"_id"`
		} `bson:"documentKey"`
	}
	if err := cs.Decode(&ev); err != nil {
		t.Fatal(err)
	}
	if ev.Op != "insert" {
		t.Fatalf("event %v, want an insert", cs.Current)
	}
	return ev.Key.ID
}

// Ensure that with --change-streams a change stream opened on a secondary
// reads the replicated change log, that only the primary trims it (no
// member logs a failed trim), and that after a failover the new primary
// numbers its changes after the replicated ones: a stream resumed there
// from the secondary's last token sees exactly the later inserts.
func TestReplSetChangeStreamOnSecondary(t *testing.T) {
	set := harness.StartSet(t, "rs0", 3, "--change-streams")
	p := waitPrimary(t, set, 20*time.Second)
	f := (p + 1) % 3
	ctx := t.Context()
	coll := setClient(t, set).Database("app").Collection("c")
	if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: 0}}); err != nil {
		t.Fatal(err)
	}
	sec := memberClient(t, set.Members[f]).Database("app").Collection("c")
	waitCount(t, sec, 1)
	cs, err := sec.Watch(ctx, mongo.Pipeline{})
	if err != nil {
		t.Fatalf("watch on a secondary: %v", err)
	}
	defer cs.Close(context.Background())
	for i := 1; i <= 5; i++ {
		if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: i}}); err != nil {
			t.Fatal(err)
		}
	}
	for i := int32(1); i <= 5; i++ {
		if id := nextInsertID(t, cs); id != i {
			t.Fatalf("secondary's stream: insert %d, want %d", id, i)
		}
	}
	token := cs.ResumeToken()

	set.Kill(p)
	np := waitPrimary(t, set, 20*time.Second)
	for i := 6; i <= 8; i++ {
		if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: i}}); err != nil {
			t.Fatal(err)
		}
	}
	resumed, err := memberClient(t, set.Members[np]).Database("app").Collection("c").
		Watch(ctx, mongo.Pipeline{}, options.ChangeStream().SetResumeAfter(token))
	if err != nil {
		t.Fatalf("resume on the new primary: %v", err)
	}
	defer resumed.Close(context.Background())
	for i := int32(6); i <= 8; i++ {
		if id := nextInsertID(t, resumed); id != i {
			t.Fatalf("resumed stream on the new primary: insert %d, want %d", id, i)
		}
	}
	time.Sleep(1500 * time.Millisecond) // a trimming pass runs every second
	for i, m := range set.Members {
		if m.Server != nil && strings.Contains(m.Logs(), "trim the change log") {
			t.Errorf("member %d logged a failed trim:\n%s", i, m.Logs())
		}
	}
}
