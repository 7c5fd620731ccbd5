package resp_test

import (
	"strings"
	"testing"
)

// TestRedisMemoryUsage: MEMORY USAGE estimates a key's bytes, more for a
// bigger value, null for a missing key; SAMPLES takes a count (0 means all
// elements) and refuses a negative one as Redis does.
func TestRedisMemoryUsage(t *testing.T) {
	e := newEnv(t)
	c := e.client(2)
	ctx := t.Context()
	runSteps(t, e, c, []step{
		ok("set", "small", "v"),
		ok("set", "big", strings.Repeat("v", 1000)),
		reply(int64(3), "hset", "h", "a", "1", "b", "2", "c", "3"),
		reply(nil, "memory", "usage", "missing"),
		fails("ERR syntax error", "memory", "usage", "h", "samples", "-1"),
		fails("ERR syntax error", "memory", "usage", "h", "samples"),
		fails("ERR syntax error", "memory", "usage", "h", "foo", "1"),
		fails("ERR value is not an integer or out of range", "memory", "usage", "h", "samples", "x"),
		ok("memory", "purge"),
	})
	usage := func(args ...any) int64 {
		t.Helper()
		n, err := c.Do(ctx, append([]any{"memory", "usage"}, args...)...).Int64()
		if err != nil {
			t.Fatalf("MEMORY USAGE %v: %v", args, err)
		}
		return n
	}
	small, big := usage("small"), usage("big")
	if small <= 0 || big-small < 990 {
		t.Fatalf("MEMORY USAGE small %d big %d", small, big)
	}
	h := usage("h")
	if h <= 0 || usage("h", "samples", "0") <= 0 {
		t.Fatalf("MEMORY USAGE h %d", h)
	}
	if err := c.Do(ctx, "hset", "h", "d", strings.Repeat("x", 500)).Err(); err != nil {
		t.Fatal(err)
	}
	if grown := usage("h", "samples", "0"); grown <= h {
		t.Fatalf("MEMORY USAGE after a larger field %d, before %d", grown, h)
	}
	help, err := c.Do(ctx, "memory", "help").StringSlice()
	if err != nil || !strings.Contains(strings.Join(help, "\n"), "USAGE <key> [SAMPLES <count>]") {
		t.Fatalf("MEMORY HELP %q %v", help, err)
	}
}

// TestRedisDebugReload: DEBUG RELOAD and LOADAOF keep the dataset as it is
// (it already lives in storage), RELOAD checks its options as Redis does,
// and QUICKLIST-PACKED-THRESHOLD takes a memory value under 4gb.
func TestRedisDebugReload(t *testing.T) {
	e := newEnv(t)
	c := e.client(2)
	runSteps(t, e, c, []step{
		reply(int64(2), "rpush", "l", "a", "b"),
		ok("debug", "reload"),
		ok("debug", "reload", "nosave", "noflush", "MERGE"),
		fails("ERR DEBUG RELOAD only supports the MERGE, NOFLUSH and NOSAVE options.", "debug", "reload", "x"),
		ok("debug", "loadaof"),
		reply([]any{"a", "b"}, "lrange", "l", "0", "-1"),
		ok("debug", "quicklist-packed-threshold", "1b"),
		ok("debug", "quicklist-packed-threshold", "0"),
		ok("debug", "quicklist-packed-threshold", "100mb"),
		fails("ERR argument must be a memory value bigger than 1 and smaller than 4gb", "debug", "quicklist-packed-threshold", "4gb"),
		fails("ERR argument must be a memory value bigger than 1 and smaller than 4gb", "debug", "quicklist-packed-threshold", "x"),
	})
}

// TestRedisObjectRefcountSharedIntegers: a string holding an integer from
// 0 to 9999 reports Redis's shared-object count, as INCR's results do;
// other values, and every value under an LRU maxmemory limit, report 1.
func TestRedisObjectRefcountSharedIntegers(t *testing.T) {
	e := newEnv(t)
	c := e.client(2)
	const shared = int64(2147483647)
	runSteps(t, e, c, []step{
		ok("set", "foo", "-1"),
		reply(int64(1), "object", "refcount", "foo"),
		reply(int64(0), "incr", "foo"),
		reply(shared, "object", "refcount", "foo"),
		ok("set", "foo", "9998"),
		reply(int64(9999), "incr", "foo"),
		reply(shared, "object", "refcount", "foo"),
		reply(int64(10000), "incr", "foo"),
		reply(int64(1), "object", "refcount", "foo"),
		ok("set", "bar", "5"),
		reply(shared, "object", "refcount", "bar"),
		ok("config", "set", "maxmemory", "1gb", "maxmemory-policy", "allkeys-lru"),
		reply(int64(1), "object", "refcount", "bar"),
		ok("config", "set", "maxmemory", "0"),
		reply(shared, "object", "refcount", "bar"),
		reply(nil, "object", "refcount", "missing"),
	})
}
