package integration_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/integration/harness"
)

// mongoNodeModules returns the node_modules directory holding the Node
// MongoDB driver and mongoose that scripts/test.sh installs (at the versions
// testdata/mongonode/package.json pins) and names in MAYFLY_MONGONODE_MODULES,
// and the node binary to run them with. Without them the test is skipped on
// a developer's machine and fails in CI (CI=true).
func mongoNodeModules(t *testing.T) (modules, node string) {
	t.Helper()
	missing := func(format string, args ...any) {
		t.Helper()
		if os.Getenv("CI") != "" {
			t.Fatalf(format+"; the test command (scripts/test.sh) installs it", args...)
		}
		t.Skipf(format+"; run scripts/test.sh to install it", args...)
	}
	modules = os.Getenv("MAYFLY_MONGONODE_MODULES")
	if modules == "" {
		missing("MAYFLY_MONGONODE_MODULES is not set")
	}
	for _, lib := range []string{"mongodb", "mongoose"} {
		if _, err := os.Stat(filepath.Join(modules, lib, "package.json")); err != nil {
			t.Fatalf("MAYFLY_MONGONODE_MODULES=%s holds no %s: %v", modules, lib, err)
		}
	}
	node, err := exec.LookPath("node")
	if err != nil {
		missing("node is not installed")
	}
	return modules, node
}

// runMongoNodeScript runs testdata/mongonode/<script> against s with a time
// limit; the script asserts every reply and exits non-zero on the first
// failure, whose message becomes the test's.
func runMongoNodeScript(t *testing.T, s *harness.Server, script string, limit time.Duration) {
	t.Helper()
	modules, node := mongoNodeModules(t)
	ctx, cancel := context.WithTimeout(t.Context(), limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, filepath.Join("testdata", "mongonode", script))
	cmd.Env = append(os.Environ(),
		"NODE_PATH="+modules,
		"MAYFLY_MONGO_ADDR="+s.MongoAddr,
		"MAYFLY_HTTP_ADDR="+s.HTTPAddr,
	)
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("%s did not finish within %v:\n%s", script, limit, out)
	}
	if err != nil {
		t.Fatalf("%s: %v\n%s", script, err, out)
	}
	t.Logf("%s", out)
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
