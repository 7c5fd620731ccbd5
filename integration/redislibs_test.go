package integration_test

import (
	"strings"
	"testing"
	"time"

	"github.com/mayfly/mayfly/integration/harness"
)

// redisLibsModules returns the Redis libraries' node_modules
// (testdata/redislibs) and the node binary.
func redisLibsModules(t *testing.T) (modules, node string) {
	t.Helper()
	return nodeModules(t, "MAYFLY_REDISLIBS_MODULES", "bullmq", "rate-limiter-flexible", "redlock", "connect-redis", "express-session")
}

// runLibScript runs testdata/redislibs/<script> against s.
func runLibScript(t *testing.T, s *harness.Server, modules, node, script string, limit time.Duration, env ...string) {
	t.Helper()
	runNodeScript(t, s, modules, node, "redislibs", script, limit, env...)
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
