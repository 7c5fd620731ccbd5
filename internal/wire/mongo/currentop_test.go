package mongo_test

import (
	"context"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// waitForOp polls currentOp until an operation matching filter is in
// progress and returns its document.
func waitForOp(t *testing.T, ts *testServer, filter bson.D) bson.Raw {
	t.Helper()
	admin := ts.client(t).Database("admin")
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		r := mustRun(t, admin, append(bson.D{{Key: "currentOp", Value: 1}}, filter...))
		ops, err := lookup(t, r, "inprog").Array().Values()
		if err != nil {
			t.Fatal(err)
		}
		if len(ops) > 0 {
			return ops[0].Document()
		}
	}
	t.Fatalf("no operation matching %v appeared in currentOp", filter)
	return nil
}

// Ensure that currentOp reports the operations in progress with MongoDB's
// fields and filters them with a query, and that killOp interrupts one,
// which then fails with Interrupted.
func TestCurrentOpAndKillOp(t *testing.T) {
	ts := startServer(t)
	cl := ts.client(t)
	admin := cl.Database("admin")

	// currentOp reports itself, and besides at most the driver's monitoring
	// (its awaitable hello, or the isMaster handshake of a monitoring
	// connection still opening), as MongoDB does.
	r := mustRun(t, admin, bson.D{{Key: "currentOp", Value: 1}})
	ops, err := lookup(t, r, "inprog").Array().Values()
	var self bson.Raw
	for _, op := range ops {
		cmd := op.Document().Lookup("command").Document()
		switch {
		case cmd.Lookup("currentOp").Type != 0 && self == nil:
			self = op.Document()
		case cmd.Lookup("hello").Type != 0 || cmd.Lookup("isMaster").Type != 0:
		default:
			t.Fatalf("inprog %v, want the currentOp itself", r)
		}
	}
	if err != nil || self == nil {
		t.Fatalf("inprog %v %v, want the currentOp itself", r, err)
	}
	for _, f := range []string{"type", "host", "desc", "connectionId", "client", "active", "currentOpTime", "opid", "secs_running", "microsecs_running", "op", "ns", "command"} {
		if _, err := self.LookupErr(f); err != nil {
			t.Errorf("currentOp document lacks %s: %v", f, self)
		}
	}
	if self.Lookup("type").StringValue() != "op" || !self.Lookup("active").Boolean() || self.Lookup("op").StringValue() != "command" ||
		self.Lookup("ns").StringValue() != "admin.$cmd" || self.Lookup("command", "currentOp").Int32() != 1 {
		t.Fatalf("currentOp document %v", self)
	}

	blocked := make(chan error, 1)
	go func() {
		blocked <- cl.Database("app").RunCommand(context.Background(), bson.D{{Key: "mayflyTestUntilKilled", Value: "events"}}).Err()
	}()
	op := waitForOp(t, ts, bson.D{{Key: "command.mayflyTestUntilKilled", Value: bson.D{{Key: "$exists", Value: true}}}})
	if op.Lookup("ns").StringValue() != "app.$cmd" || !op.Lookup("active").Boolean() {
		t.Fatalf("blocked operation %v", op)
	}
	// A filter that matches nothing.
	r = mustRun(t, admin, bson.D{{Key: "currentOp", Value: 1}, {Key: "ns", Value: "nowhere.$cmd"}})
	if n, _ := lookup(t, r, "inprog").Array().Values(); len(n) != 0 {
		t.Fatalf("filtered currentOp %v", r)
	}

	// $currentOp lists it too, and the rest of the pipeline applies.
	cur, err := admin.Aggregate(context.Background(), bson.A{
		bson.D{{Key: "$currentOp", Value: bson.D{{Key: "allUsers", Value: true}}}},
		bson.D{{Key: "$match", Value: bson.D{{Key: "opid", Value: op.Lookup("opid").Int32()}}}},
		bson.D{{Key: "$project", Value: bson.D{{Key: "opid", Value: 1}, {Key: "ns", Value: 1}}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	var agg []bson.Raw
	if err := cur.All(context.Background(), &agg); err != nil || len(agg) != 1 || agg[0].Lookup("ns").StringValue() != "app.$cmd" {
		t.Fatalf("$currentOp %v %v", agg, err)
	}

	r = mustRun(t, admin, bson.D{{Key: "killOp", Value: 1}, {Key: "op", Value: op.Lookup("opid").Int32()}})
	if lookup(t, r, "info").StringValue() != "attempting to kill op" {
		t.Fatalf("killOp %v", r)
	}
	select {
	case err := <-blocked:
		wantError(t, err, 11601, "Interrupted", "operation was interrupted")
	case <-time.After(10 * time.Second):
		t.Fatal("the killed operation is still running")
	}

	cmdError(t, admin, bson.D{{Key: "killOp", Value: 1}}, 4, "NoSuchKey", `Missing expected field "op"`)
	cmdError(t, admin, bson.D{{Key: "killOp", Value: 1}, {Key: "op", Value: "x"}}, 14, "TypeMismatch", `Expected field "op" to have numeric type, but found string`)
	cmdError(t, cl.Database("app"), bson.D{{Key: "currentOp", Value: 1}}, 13, "Unauthorized", "currentOp may only be run against the admin database.")
	cmdError(t, cl.Database("app"), bson.D{{Key: "aggregate", Value: 1}, {Key: "pipeline", Value: bson.A{bson.D{{Key: "$currentOp", Value: bson.D{}}}}}, {Key: "cursor", Value: bson.D{}}},
		73, "InvalidNamespace", "$currentOp must be run against the 'admin' database with {aggregate: 1}")
	cmdError(t, admin, bson.D{{Key: "aggregate", Value: 1}, {Key: "pipeline", Value: bson.A{bson.D{{Key: "$currentOp", Value: bson.D{{Key: "bogus", Value: true}}}}}}, {Key: "cursor", Value: bson.D{}}},
		9, "FailedToParse", "Unrecognized option 'bogus' in $currentOp stage.")
}

// Ensure that currentOp with $all and $currentOp with idleConnections and
// idleCursors report idle connections and open cursors.
func TestCurrentOpIdleConnectionsAndCursors(t *testing.T) {
	ts := startServer(t)
	cl := ts.client(t)
	ctx := context.Background()
	coll := cl.Database("app").Collection("items")
	for i := range 5 {
		if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: i}}); err != nil {
			t.Fatal(err)
		}
	}
	cur, err := coll.Find(ctx, bson.D{}, options.Find().SetBatchSize(2))
	if err != nil {
		t.Fatal(err)
	}
	defer cur.Close(ctx)
	if !cur.Next(ctx) {
		t.Fatal(cur.Err())
	}
	other := ts.client(t)
	if err := other.Ping(ctx, nil); err != nil {
		t.Fatal(err)
	}

	admin := cl.Database("admin")
	r := mustRun(t, admin, bson.D{{Key: "currentOp", Value: 1}, {Key: "$all", Value: true}, {Key: "active", Value: false}, {Key: "type", Value: "op"}})
	idle, _ := lookup(t, r, "inprog").Array().Values()
	if len(idle) == 0 {
		t.Fatalf("currentOp $all shows no idle connection: %v", r)
	}
	r = mustRun(t, admin, bson.D{{Key: "currentOp", Value: 1}, {Key: "type", Value: "op"}, {Key: "active", Value: false}})
	if n, _ := lookup(t, r, "inprog").Array().Values(); len(n) != 0 {
		t.Fatalf("currentOp without $all shows idle connections: %v", r)
	}

	c, err := admin.Aggregate(ctx, bson.A{
		bson.D{{Key: "$currentOp", Value: bson.D{{Key: "idleCursors", Value: true}}}},
		bson.D{{Key: "$match", Value: bson.D{{Key: "type", Value: "idleCursor"}}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	var cursors []bson.Raw
	if err := c.All(ctx, &cursors); err != nil {
		t.Fatal(err)
	}
	if len(cursors) != 1 || cursors[0].Lookup("ns").StringValue() != "app.items" || cursors[0].Lookup("cursor", "nDocsReturned").Int64() != 2 ||
		cursors[0].Lookup("cursor", "originatingCommand", "find").StringValue() != "items" {
		t.Fatalf("idle cursors %v", cursors)
	}
}
