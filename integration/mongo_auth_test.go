package integration_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/mayfly/mayfly/integration/harness"
)

// credClient connects with credentials in the URI.
func credClient(t *testing.T, s *harness.Server, user, pwd, authSource, mech string) *mongo.Client {
	t.Helper()
	uri := "mongodb://" + user + ":" + pwd + "@" + s.MongoAddr + "/?directConnection=true&authSource=" + authSource
	if mech != "" {
		uri += "&authMechanism=" + mech
	}
	cl, err := mongo.Connect(options.Client().ApplyURI(uri).SetTimeout(30 * time.Second))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cl.Disconnect(context.Background()) })
	return cl
}

func wantUnauthorized(t *testing.T, err error, prefix string) {
	t.Helper()
	var ce mongo.CommandError
	if !errors.As(err, &ce) || ce.Code != 13 || ce.Name != "Unauthorized" || !strings.HasPrefix(ce.Message, prefix) {
		t.Fatalf("error = %v, want Unauthorized %q...", err, prefix)
	}
}

// TestMongoAuth runs the binary with --auth: the localhost exception for
// the first user, SCRAM-SHA-256 and SCRAM-SHA-1 with credentials in the
// URI, a wrong password, and a readWrite user refused what it lacks.
func TestMongoAuth(t *testing.T) {
	s := harness.Start(t, "--auth", "--resp-config", "requirepass=redis-secret")
	ctx := t.Context()
	anon := mongoClient(t, s)
	if err := anon.Ping(ctx, nil); err != nil {
		t.Fatalf("ping before authentication: %v", err)
	}
	// Under the localhost exception the client holds only the privileges
	// to create the first user.
	_, err := anon.Database("shop").Collection("orders").Find(ctx, bson.D{})
	wantUnauthorized(t, err, `not authorized on shop to execute command { find: "orders"`)

	// The localhost exception: the first user, then no more.
	err = anon.Database("admin").RunCommand(ctx, bson.D{{Key: "createUser", Value: "admin"}, {Key: "pwd", Value: "rootpw"},
		{Key: "roles", Value: bson.A{"root"}}}).Err()
	if err != nil {
		t.Fatalf("first user through the localhost exception: %v", err)
	}
	err = anon.Database("admin").RunCommand(ctx, bson.D{{Key: "createUser", Value: "sneaky"}, {Key: "pwd", Value: "x"},
		{Key: "roles", Value: bson.A{"root"}}}).Err()
	wantUnauthorized(t, err, "Command createUser requires authentication")
	_, err = anon.Database("shop").Collection("orders").Find(ctx, bson.D{})
	wantUnauthorized(t, err, "Command find requires authentication")

	root := credClient(t, s, "admin", "rootpw", "admin", "SCRAM-SHA-256")
	if err := root.Database("shop").RunCommand(ctx, bson.D{{Key: "createUser", Value: "app"}, {Key: "pwd", Value: "apppw"},
		{Key: "roles", Value: bson.A{"readWrite"}}}).Err(); err != nil {
		t.Fatal(err)
	}
	for _, mech := range []string{"SCRAM-SHA-256", "SCRAM-SHA-1"} {
		app := credClient(t, s, "app", "apppw", "shop", mech)
		orders := app.Database("shop").Collection("orders")
		if _, err := orders.InsertOne(ctx, bson.D{{Key: "_id", Value: mech}}); err != nil {
			t.Fatalf("%s: insert: %v", mech, err)
		}
		if n, err := orders.CountDocuments(ctx, bson.D{}); err != nil || n == 0 {
			t.Fatalf("%s: count %d %v", mech, n, err)
		}
		err := app.Database("shop").RunCommand(ctx, bson.D{{Key: "dropDatabase", Value: 1}}).Err()
		wantUnauthorized(t, err, "not authorized on shop to execute command { dropDatabase: 1")
		err = app.Database("shop").RunCommand(ctx, bson.D{{Key: "createUser", Value: "x"}, {Key: "pwd", Value: "x"}, {Key: "roles", Value: bson.A{}}}).Err()
		wantUnauthorized(t, err, "not authorized on shop to execute command { createUser: \"x\"")
	}
	bad := credClient(t, s, "app", "not-the-password", "shop", "SCRAM-SHA-256")
	err = bad.Ping(ctx, nil)
	if err == nil || !strings.Contains(err.Error(), "Authentication failed") {
		t.Fatalf("wrong password: %v, want AuthenticationFailed", err)
	}
	// The log is read from the process's stderr as it arrives.
	logs := s.WaitLog(t, "Authentication failed", 10*time.Second)
	if !strings.Contains(logs, `"user":"app"`) {
		t.Errorf("the failure is not logged with its user:\n%s", logs)
	}
	if strings.Contains(logs, "not-the-password") || strings.Contains(logs, "apppw") {
		t.Errorf("a password is in the log")
	}
	raw, err := root.Database("admin").RunCommand(ctx, bson.D{{Key: "getCmdLineOpts", Value: 1}}).Raw()
	if err != nil || raw.Lookup("parsed", "security", "authorization").StringValue() != "enabled" {
		t.Fatalf("getCmdLineOpts %v %v", raw, err)
	}
}

// TestMongoAuthConfigFile: auth = true in the config file turns access
// control on as --auth does.
func TestMongoAuthConfigFile(t *testing.T) {
	conf := filepath.Join(t.TempDir(), "mayfly.conf")
	if err := os.WriteFile(conf, []byte("auth = true\nresp-config = requirepass=redis-secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := harness.Start(t, "--config", conf)
	_, err := mongoClient(t, s).Database("x").Collection("y").Find(t.Context(), bson.D{})
	wantUnauthorized(t, err, `not authorized on x to execute command { find: "y"`)
}

// TestMongoAuthMongosh: mongosh creates the first user through the
// localhost exception, logs in with --username --password
// --authenticationDatabase, creates a user with db.createUser() and
// switches to it with db.auth().
func TestMongoAuthMongosh(t *testing.T) {
	s := harness.Start(t, "--auth", "--resp-config", "requirepass=redis-secret")
	out := mongosh(t, s, "admin", `db.createUser({user: "admin", pwd: "rootpw", roles: ["root"]})
`, "--quiet")
	wantOutput(t, out, "ok: 1")
	out = mongosh(t, s, "shop", `db.createUser({user: "bob", pwd: "bobpw", roles: ["read"]})
db.orders.insertOne({_id: 1, item: "tea"})
db.auth("bob", "bobpw")
db.runCommand({connectionStatus: 1}).authInfo.authenticatedUsers[0].user
db.orders.findOne()
try { db.orders.insertOne({_id: 2}) } catch (e) { print("refused " + e.codeName) }
`, "--quiet", "--username", "admin", "--password", "rootpw", "--authenticationDatabase", "admin")
	for _, w := range []string{"ok: 1", "bob", "item: 'tea'", "refused Unauthorized"} {
		if !strings.Contains(out, w) {
			t.Errorf("mongosh output lacks %q:\n%s", w, out)
		}
	}
	// A wrong password: mongosh reports MongoDB's failure and exits
	// non-zero.
	cmd := exec.CommandContext(t.Context(), harness.Tool(t, "mongosh"), "mongodb://"+s.MongoAddr+"/shop",
		"--quiet", "--username", "bob", "--password", "wrong", "--authenticationDatabase", "shop", "--eval", "db.orders.countDocuments()")
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "NO_COLOR=1")
	b, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(b), "Authentication failed") {
		t.Errorf("mongosh with a wrong password: %v\n%s", err, b)
	}
}
