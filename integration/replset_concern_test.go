package integration_test

import (
	"errors"
	"net"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/readconcern"
	"go.mongodb.org/mongo-driver/v2/mongo/writeconcern"

	"github.com/mayfly/mayfly/integration/harness"
)

// Ensure that writeConcern and readConcern mean on a three-member set
// what they mean on MongoDB's: w:3 returns once every member applied the
// write, w:4 is unsatisfiable (100), w:3 with a member stopped times out
// after wtimeout (64, errInfo.wtimeout) while w:"majority" still
// succeeds, and a linearizable read is served by the primary and refused
// by a secondary with NotWritablePrimary.
func TestReplSetWriteAndReadConcerns(t *testing.T) {
	set := harness.StartSet(t, "rs0", 3)
	p := waitPrimary(t, set, 20*time.Second)
	ctx := t.Context()
	cl := setClient(t, set)
	all := cl.Database("app").Collection("c", options.Collection().SetWriteConcern(&writeconcern.WriteConcern{W: 3}))
	for i := 0; i < 20; i++ {
		if _, err := all.InsertOne(ctx, bson.D{{Key: "_id", Value: i}}); err != nil {
			t.Fatalf("w:3 insert %d: %v", i, err)
		}
		// Acknowledged with w:3: every member has it already.
		for j, m := range set.Members {
			n, err := memberClient(t, m).Database("app").Collection("c").CountDocuments(ctx, bson.D{{Key: "_id", Value: i}})
			if err != nil || n != 1 {
				t.Fatalf("member %d after the w:3 insert %d: count %d (%v)", j, i, n, err)
			}
		}
	}

	send := func(cmd bson.D) bson.Raw {
		t.Helper()
		nc, err := net.Dial("tcp", set.Members[p].MongoAddr)
		if err != nil {
			t.Fatal(err)
		}
		defer nc.Close()
		return opMsg(t, nc, 1, append(cmd, bson.E{Key: "$db", Value: "app"}))
	}
	insert := func(id int, wc bson.D) bson.D {
		return bson.D{{Key: "insert", Value: "c"}, {Key: "documents", Value: bson.A{bson.D{{Key: "_id", Value: id}}}},
			{Key: "writeConcern", Value: wc}}
	}
	r := send(insert(100, bson.D{{Key: "w", Value: 4}}))
	if r.Lookup("n").Int32() != 1 || r.Lookup("writeConcernError", "code").Int32() != 100 ||
		r.Lookup("writeConcernError", "codeName").StringValue() != "UnsatisfiableWriteConcern" ||
		r.Lookup("writeConcernError", "errmsg").StringValue() != "Not enough data-bearing nodes" {
		t.Fatalf("w:4 on a set of 3: %v", r)
	}
	r = send(insert(101, bson.D{{Key: "w", Value: "dc"}}))
	if r.Lookup("writeConcernError", "code").Int32() != 79 {
		t.Fatalf("w:\"dc\" with no such tag: %v", r)
	}

	// One secondary stopped: w:3 times out, majority succeeds.
	f := (p + 1) % 3
	if err := set.Pause(f); err != nil {
		t.Fatal(err)
	}
	defer set.Resume(f)
	start := time.Now()
	r = send(insert(102, bson.D{{Key: "w", Value: 3}, {Key: "wtimeout", Value: 300}}))
	waited := time.Since(start)
	wce := r.Lookup("writeConcernError")
	if r.Lookup("n").Int32() != 1 || wce.Document().Lookup("code").Int32() != 64 ||
		wce.Document().Lookup("errmsg").StringValue() != "waiting for replication timed out" ||
		!wce.Document().Lookup("errInfo", "wtimeout").Boolean() ||
		wce.Document().Lookup("errInfo", "writeConcern", "w").Int32() != 3 {
		t.Fatalf("w:3 with a member stopped: %v", r)
	}
	if waited < 300*time.Millisecond || waited > 5*time.Second {
		t.Fatalf("w:3 wtimeout 300 answered after %v", waited)
	}
	r = send(insert(103, bson.D{{Key: "w", Value: "majority"}, {Key: "j", Value: true}}))
	if r.Lookup("n").Int32() != 1 || r.Lookup("writeConcernError").Type != 0 {
		t.Fatalf("w:majority with one member stopped: %v", r)
	}
	if err := set.Resume(f); err != nil {
		t.Fatal(err)
	}

	// Linearizable reads: the primary serves them, a secondary refuses.
	lin := options.Collection().SetReadConcern(readconcern.Linearizable())
	if n, err := cl.Database("app").Collection("c", lin).CountDocuments(ctx, bson.D{{Key: "_id", Value: 103}}); err != nil || n != 1 {
		t.Fatalf("linearizable read on the primary: %d (%v)", n, err)
	}
	// A command the driver does not retry: a find would be retried on the
	// NotWritablePrimary until the client's timeout, since the error's
	// topologyVersion keeps the member selectable, as with MongoDB.
	err := memberClient(t, set.Members[f]).Database("app").RunCommand(ctx, bson.D{
		{Key: "find", Value: "c"}, {Key: "readConcern", Value: bson.D{{Key: "level", Value: "linearizable"}}},
	}).Err()
	var ce mongo.CommandError
	if !errors.As(err, &ce) || ce.Code != 10107 {
		t.Fatalf("linearizable read on a secondary: %v, want NotWritablePrimary", err)
	}
	for _, level := range []*readconcern.ReadConcern{readconcern.Local(), readconcern.Majority()} {
		c := memberClient(t, set.Members[f]).Database("app").Collection("c", options.Collection().SetReadConcern(level))
		waitCount(t, c, 24)
	}
}
