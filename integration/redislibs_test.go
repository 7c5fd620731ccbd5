package integration_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mayfly/mayfly/integration/harness"
)

// redisLibsModules returns the node_modules directory holding the libraries
// that scripts/test.sh installs (at the versions testdata/redislibs/
// package.json pins) and names in MAYFLY_REDISLIBS_MODULES, and the node
// binary to run them with. Without them the test is skipped on a
// developer's machine and fails in CI (CI=true).
func redisLibsModules(t *testing.T) (modules, node string) {
	t.Helper()
	missing := func(format string, args ...any) {
		t.Helper()
		if os.Getenv("CI") != "" {
			t.Fatalf(format+"; the test command (scripts/test.sh) installs it", args...)
		}
		t.Skipf(format+"; run scripts/test.sh to install it", args...)
	}
	modules = os.Getenv("MAYFLY_REDISLIBS_MODULES")
	if modules == "" {
		missing("MAYFLY_REDISLIBS_MODULES is not set")
	}
	for _, lib := range []string{"bullmq", "rate-limiter-flexible", "redlock", "connect-redis", "express-session"} {
		if _, err := os.Stat(filepath.Join(modules, lib, "package.json")); err != nil {
			t.Fatalf("MAYFLY_REDISLIBS_MODULES=%s holds no %s: %v", modules, lib, err)
		}
	}
	node, err := exec.LookPath("node")
	if err != nil {
		missing("node is not installed")
	}
	return modules, node
}

// runLibScript runs testdata/redislibs/<script> against s with a time
// limit and the extra environment variables env; the script asserts every reply and exits non-zero on the first
// failure, whose message becomes the test's.
func runLibScript(t *testing.T, s *harness.Server, modules, node, script string, limit time.Duration, env ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, filepath.Join("testdata", "redislibs", script))
	cmd.Env = append(os.Environ(),
		"NODE_PATH="+modules,
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

// TestRateLimiterFlexible drives rate-limiter-flexible's RateLimiterRedis
// (its INCRBY+PTTL script through EVALSHA over ioredis, EVAL and MULTI over
// node-redis): consuming until blocked, the msBeforeNext from the key's
// PTTL, penalty and reward, blockDuration. The server's clock is manual, so
// every remaining time is exact.
func TestRateLimiterFlexible(t *testing.T) {
	modules, node := redisLibsModules(t)
	s := harness.Start(t, "--manual-clock")
	runLibScript(t, s, modules, node, "ratelimiter_test.js", 2*time.Minute)
}

// TestRedlock drives the redlock package: acquire, extend and release
// scripts, contention between two clients, all-or-nothing multi-resource
// locks, automatic extension in using(), and a lock's expiry on its own.
func TestRedlock(t *testing.T) {
	modules, node := redisLibsModules(t)
	s := harness.Start(t, "--manual-clock")
	runLibScript(t, s, modules, node, "redlock_test.js", 2*time.Minute)
}

// TestConnectRedis drives connect-redis over node-redis as
// express-session's store: set, get, touch and destroy with the TTL on each
// key, and the session middleware behind an HTTP server.
func TestConnectRedis(t *testing.T) {
	modules, node := redisLibsModules(t)
	s := harness.Start(t, "--manual-clock")
	runLibScript(t, s, modules, node, "connect_redis_test.js", 2*time.Minute)
}

// missingCommands returns those of names the server does not know, by
// COMMAND INFO (whose entry for an unknown command is nil).
func missingCommands(t *testing.T, s *harness.Server, names ...string) []string {
	t.Helper()
	rc := connectRedis(t, s)
	args := []any{"COMMAND", "INFO"}
	for _, n := range names {
		args = append(args, n)
	}
	infos, err := rc.Do(t.Context(), args...).Slice()
	if err != nil {
		t.Fatalf("COMMAND INFO: %v", err)
	}
	var missing []string
	for i, info := range infos {
		if info == nil {
			missing = append(missing, names[i])
		}
	}
	return missing
}

// TestBullMQ drives BullMQ on the real clock (its delays, backoffs and
// repeat intervals are the client's wall time): a Worker processing a
// Queue's jobs, a delayed job, a repeatable job bounded by a limit, a job
// that fails and then succeeds on retry after a backoff, one that runs out
// of attempts, progress and logs, a flow of a parent and its children, a
// rate-limited worker, pause and resume, and QueueEvents receiving
// completed, failed and progress. Every BullMQ script that adds or moves a
// job appends to the queue's event stream, so on a server without XADD
// (and XREAD and XTRIM, which QueueEvents and the trimming of events use)
// only the connection step runs and the rest is skipped, naming the
// commands.
func TestBullMQ(t *testing.T) {
	modules, node := redisLibsModules(t)
	s := harness.Start(t)
	missing := missingCommands(t, s, "XADD", "XREAD", "XTRIM")
	t.Run("connect", func(t *testing.T) {
		runLibScript(t, s, modules, node, "bullmq_test.js", time.Minute, "MAYFLY_BULLMQ_PART=connect")
	})
	t.Run("jobs", func(t *testing.T) {
		if len(missing) > 0 {
			t.Skipf("needs the Redis Streams commands %s, which mayfly does not have yet", strings.Join(missing, ", "))
		}
		runLibScript(t, s, modules, node, "bullmq_test.js", 2*time.Minute)
	})
}
