package mongo_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	drv "go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	wire "github.com/mayfly/mayfly/internal/wire/mongo"
)

func withTestCommands(o *wire.Options) { o.TestCommands = true }

func failCommand(mode any, data bson.D) bson.D {
	cmd := bson.D{{Key: "configureFailPoint", Value: "failCommand"}, {Key: "mode", Value: mode}}
	if data != nil {
		cmd = append(cmd, bson.E{Key: "data", Value: data})
	}
	return cmd
}

// noRetryClient connects without retryable reads and writes, so that each
// operation sends its command once, with the given application name.
func noRetryClient(t *testing.T, ts *testServer, appName string) *drv.Client {
	t.Helper()
	o := options.Client().ApplyURI("mongodb://" + ts.addr + "/?directConnection=true").
		SetRetryReads(false).SetRetryWrites(false)
	if appName != "" {
		o.SetAppName(appName)
	}
	cl, err := drv.Connect(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cl.Disconnect(context.Background()) })
	return cl
}

func TestConfigureFailPointNeedsTestCommands(t *testing.T) {
	t.Parallel()
	ts := startServer(t)
	admin := ts.client(t).Database("admin")
	cmdError(t, admin, failCommand("alwaysOn", bson.D{{Key: "failCommands", Value: bson.A{"ping"}}}),
		59, "CommandNotFound", "no such command: 'configureFailPoint'")
	r := mustRun(t, admin, bson.D{{Key: "listCommands", Value: 1}})
	if _, err := r.LookupErr("commands", "configureFailPoint"); err == nil {
		t.Error("listCommands lists configureFailPoint without test commands")
	}
}

func TestFailCommandErrorCodeTimes(t *testing.T) {
	t.Parallel()
	ts := startServer(t, withTestCommands)
	cl := noRetryClient(t, ts, "")
	admin := cl.Database("admin")
	cmdError(t, cl.Database("test"), failCommand("alwaysOn", nil), 13, "Unauthorized", "configureFailPoint may only be run against the admin database.")
	r := mustRun(t, admin, failCommand(bson.D{{Key: "times", Value: 2}}, bson.D{
		{Key: "failCommands", Value: bson.A{"insert", "find"}},
		{Key: "errorCode", Value: 91},
		{Key: "errorLabels", Value: bson.A{"SystemOverloadedError"}},
	}))
	if lookup(t, r, "count").Int64() != 0 {
		t.Errorf("first configureFailPoint: %v", r)
	}
	coll := cl.Database("test").Collection("c", options.Collection())
	ctx := context.Background()
	// ping is not named: it runs.
	mustRun(t, admin, bson.D{{Key: "ping", Value: 1}})
	for range 2 {
		err := coll.FindOne(ctx, bson.D{}).Err()
		wantError(t, err, 91, "ShutdownInProgress", "Failing command via 'failCommand' failpoint")
		var se drv.ServerError
		if !errors.As(err, &se) || !se.HasErrorLabel("SystemOverloadedError") {
			t.Fatalf("error %v lacks the fail point's label", err)
		}
	}
	// Two activations used: the third command runs.
	if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: 1}}); err != nil {
		t.Fatalf("insert after the fail point ran out: %v", err)
	}
	r = mustRun(t, admin, failCommand("off", nil))
	if lookup(t, r, "count").Int64() != 2 {
		t.Errorf("count after two activations: %v", r)
	}
}

func TestFailCommandSkipAndAppName(t *testing.T) {
	t.Parallel()
	ts := startServer(t, withTestCommands)
	admin := ts.client(t).Database("admin")
	named := noRetryClient(t, ts, "victim")
	mustRun(t, admin, failCommand(bson.D{{Key: "skip", Value: 1}}, bson.D{
		{Key: "failCommands", Value: bson.A{"ping"}},
		{Key: "errorCode", Value: 2},
		{Key: "appName", Value: "victim"},
	}))
	// Another application's ping is never failed.
	mustRun(t, admin, bson.D{{Key: "ping", Value: 1}})
	victim := named.Database("admin")
	mustRun(t, victim, bson.D{{Key: "ping", Value: 1}}) // skipped
	cmdError(t, victim, bson.D{{Key: "ping", Value: 1}}, 2, "BadValue", "Failing command via 'failCommand' failpoint")
	cmdError(t, victim, bson.D{{Key: "ping", Value: 1}}, 2, "BadValue", "Failing command via 'failCommand' failpoint")
	mustRun(t, admin, failCommand("off", nil))
	mustRun(t, victim, bson.D{{Key: "ping", Value: 1}})
}

func TestFailCommandWriteConcernError(t *testing.T) {
	t.Parallel()
	ts := startServer(t, withTestCommands)
	cl := noRetryClient(t, ts, "")
	mustRun(t, cl.Database("admin"), failCommand(bson.D{{Key: "times", Value: 1}}, bson.D{
		{Key: "failCommands", Value: bson.A{"insert"}},
		{Key: "writeConcernError", Value: bson.D{{Key: "code", Value: 64}, {Key: "errmsg", Value: "waiting for replication timed out"}}},
	}))
	coll := cl.Database("test").Collection("c")
	_, err := coll.InsertOne(context.Background(), bson.D{{Key: "_id", Value: 1}})
	var we drv.WriteException
	if !errors.As(err, &we) || we.WriteConcernError == nil || we.WriteConcernError.Code != 64 {
		t.Fatalf("insert: %v, want a write concern error 64", err)
	}
	// The command itself ran.
	if n, err := coll.CountDocuments(context.Background(), bson.D{}); err != nil || n != 1 {
		t.Fatalf("count = %d, %v; want the insert applied", n, err)
	}
}

func TestFailCommandCloseConnectionAndBlock(t *testing.T) {
	t.Parallel()
	ts := startServer(t, withTestCommands)
	cl := noRetryClient(t, ts, "")
	admin := cl.Database("admin")
	mustRun(t, admin, failCommand(bson.D{{Key: "times", Value: 1}}, bson.D{
		{Key: "failCommands", Value: bson.A{"find"}},
		{Key: "closeConnection", Value: true},
	}))
	coll := cl.Database("test").Collection("c")
	ctx := context.Background()
	err := coll.FindOne(ctx, bson.D{}).Err()
	var le drv.LabeledError
	if err == nil || !errors.As(err, &le) || !le.HasErrorLabel("NetworkError") {
		t.Fatalf("find on a closed connection: %v, want a network error", err)
	}
	mustRun(t, admin, failCommand(bson.D{{Key: "times", Value: 1}}, bson.D{
		{Key: "failCommands", Value: bson.A{"find"}},
		{Key: "blockConnection", Value: true},
		{Key: "blockTimeMS", Value: 1000},
	}))
	// A client deadline shorter than the block ends the command.
	short, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancel()
	if err := coll.FindOne(short, bson.D{}).Err(); !drv.IsTimeout(err) {
		t.Fatalf("find blocked by the fail point: %v, want a timeout", err)
	}
	cmdError(t, admin, failCommand("alwaysOn", bson.D{{Key: "failCommands", Value: bson.A{"find"}}, {Key: "blockConnection", Value: true}}),
		72, "InvalidOptions", "must specify 'blockTimeMS' when 'blockConnection' is true")
	cmdError(t, admin, bson.D{{Key: "configureFailPoint", Value: "noSuchPoint"}, {Key: "mode", Value: "off"}},
		266, "FailPointSetFailed", "noSuchPoint not found")
}

func TestKillAllSessions(t *testing.T) {
	t.Parallel()
	ts := startServer(t)
	cl := ts.client(t)
	ctx := context.Background()
	coll := cl.Database("test").Collection("c")
	docs := make([]any, 10)
	for i := range docs {
		docs[i] = bson.D{{Key: "_id", Value: i}}
	}
	if _, err := coll.InsertMany(ctx, docs); err != nil {
		t.Fatal(err)
	}
	admin := cl.Database("admin")
	open := func() *drv.Cursor {
		cur, err := coll.Find(ctx, bson.D{}, options.Find().SetBatchSize(2))
		if err != nil {
			t.Fatal(err)
		}
		return cur
	}
	killed := func(cur *drv.Cursor) {
		t.Helper()
		for cur.Next(ctx) {
		}
		wantError(t, cur.Err(), 43, "CursorNotFound", "")
	}
	for _, cmd := range []bson.D{
		{{Key: "killAllSessions", Value: bson.A{}}},
		{{Key: "killAllSessionsByPattern", Value: bson.A{}}},
		{{Key: "killAllSessionsByPattern", Value: bson.A{bson.D{{Key: "users", Value: bson.A{}}}}}},
	} {
		cur := open()
		mustRun(t, admin, cmd)
		if cmd[0].Key == "killAllSessionsByPattern" && len(cmd[0].Value.(bson.A)) == 1 {
			// No user matches an empty users list: the cursor lives.
			n := 0
			for cur.Next(ctx) {
				n++
			}
			if cur.Err() != nil || n != 10 {
				t.Fatalf("cursor after a pattern matching nobody: %d docs, %v", n, cur.Err())
			}
			continue
		}
		killed(cur)
	}
	// A pattern naming the session by its id.
	sess, err := cl.StartSession()
	if err != nil {
		t.Fatal(err)
	}
	defer sess.EndSession(ctx)
	var cur *drv.Cursor
	err = drv.WithSession(ctx, sess, func(sctx context.Context) error {
		cur, err = coll.Find(sctx, bson.D{}, options.Find().SetBatchSize(2))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	_, id := sess.ID().Lookup("id").Binary()
	mustRun(t, admin, bson.D{{Key: "killAllSessionsByPattern", Value: bson.A{bson.D{{Key: "lsid", Value: bson.D{{Key: "id", Value: bson.Binary{Subtype: 4, Data: id}}}}}}}})
	killed(cur)
	cmdError(t, admin, bson.D{{Key: "killAllSessions", Value: bson.A{bson.D{{Key: "user", Value: "u"}}}}},
		40414, "IDLFailedToParse", "BSON field 'KillAllSessionsUser.db' is missing but a required field")
	cmdError(t, admin, bson.D{{Key: "killAllSessionsByPattern", Value: bson.A{bson.D{{Key: "nope", Value: 1}}}}},
		40415, "IDLUnknownField", "BSON field 'KillAllSessionsByPattern.nope' is an unknown field.")
}
