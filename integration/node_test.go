package integration_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/mayfly/mayfly/integration/harness"
)

// nodeModules returns the node_modules directory that scripts/test.sh
// installs (at the versions a testdata/<dir>/package.json pins) and names
// in the environment variable env, checking it holds libs, and the node
// binary to run scripts with. Without them the test is skipped on a
// developer's machine and fails in CI (CI=true).
func nodeModules(t *testing.T, env string, libs ...string) (modules, node string) {
	t.Helper()
	missing := func(format string, args ...any) {
		t.Helper()
		if os.Getenv("CI") != "" {
			t.Fatalf(format+"; the test command (scripts/test.sh) installs it", args...)
		}
		t.Skipf(format+"; run scripts/test.sh to install it", args...)
	}
	modules = os.Getenv(env)
	if modules == "" {
		missing("%s is not set", env)
	}
	for _, lib := range libs {
		if _, err := os.Stat(filepath.Join(modules, lib, "package.json")); err != nil {
			t.Fatalf("%s=%s holds no %s: %v", env, modules, lib, err)
		}
	}
	node, err := exec.LookPath("node")
	if err != nil {
		missing("node is not installed")
	}
	return modules, node
}

// runNodeScript runs testdata/<dir>/<script> against s with a time limit
// and the extra environment variables env (the server's addresses are in
// MAYFLY_MONGO_ADDR, MAYFLY_RESP_ADDR and MAYFLY_HTTP_ADDR); the script
// asserts every reply and exits non-zero on the first failure, whose
// message becomes the test's.
func runNodeScript(t *testing.T, s *harness.Server, modules, node, dir, script string, limit time.Duration, env ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, filepath.Join("testdata", dir, script))
	cmd.Env = append(os.Environ(),
		"NODE_PATH="+modules,
		"MAYFLY_MONGO_ADDR="+s.MongoAddr,
		"MAYFLY_RESP_ADDR="+s.RespAddr,
		"MAYFLY_HTTP_ADDR="+s.HTTPAddr,
	)
	cmd.Env = append(cmd.Env, env...)
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("%s did not finish within %v:\n%s", script, limit, out)
	}
	if err != nil {
		t.Fatalf("%s: %v\n%s", script, err, out)
	}
	t.Logf("%s", out)
}
