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

// ioredisModules returns the node_modules directory holding the ioredis
// that scripts/test.sh installs (at the version testdata/ioredis/
// package.json pins) and names in MAYFLY_IOREDIS_MODULES, and the node
// binary to run it with. Without them the test is skipped on a developer's
// machine and fails in CI (CI=true), where the test command must have
// installed them, like the other client tools (harness.Tool).
func ioredisModules(t *testing.T) (modules, node string) {
	t.Helper()
	missing := func(format string, args ...any) {
		t.Helper()
		if os.Getenv("CI") != "" {
			t.Fatalf(format+"; the test command (scripts/test.sh) installs it", args...)
		}
		t.Skipf(format+"; run scripts/test.sh to install it", args...)
	}
	modules = os.Getenv("MAYFLY_IOREDIS_MODULES")
	if modules == "" {
		missing("MAYFLY_IOREDIS_MODULES is not set")
	}
	if _, err := os.Stat(filepath.Join(modules, "ioredis", "package.json")); err != nil {
		t.Fatalf("MAYFLY_IOREDIS_MODULES=%s holds no ioredis: %v", modules, err)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		missing("node is not installed")
	}
	return modules, node
}

// TestIoredis runs testdata/ioredis/ioredis_test.js, which drives the real
// binary through ioredis (strings with EX/PX, the EXPIRE family with
// NX/XX/GT/LT, hashes with field expiry, lists, sets, sorted sets,
// MULTI/EXEC and pipelines, OBJECT IDLETIME, keyspace notifications of
// expiry) and asserts every reply; it moves the server's manual clock
// instead of waiting.
func TestIoredis(t *testing.T) {
	modules, node := ioredisModules(t)
	s := harness.Start(t, "--manual-clock")
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, filepath.Join("testdata", "ioredis", "ioredis_test.js"))
	cmd.Env = append(os.Environ(),
		"NODE_PATH="+modules,
		"MAYFLY_RESP_ADDR="+s.RespAddr,
		"MAYFLY_HTTP_ADDR="+s.HTTPAddr,
	)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("ioredis script: %v\n%s", err, out)
	}
	t.Logf("%s", out)
}
