package resp_test

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/mayfly/mayfly/internal/kv"
)

const oomErr = "OOM command not allowed when used memory > 'maxmemory'."

// keyCost is what a string key of mayfly counts: 56 bytes of overhead,
// its name and its value.
func keyCost(key, val string) int64 { return 56 + int64(len(key)+len(val)) }

func infoInt(t *testing.T, e *env, section, field string) int64 {
	t.Helper()
	n, err := strconv.ParseInt(infoField(t, e, section, field), 10, 64)
	if err != nil {
		t.Fatalf("INFO %s %s: %v", section, field, err)
	}
	return n
}

func configSet(t *testing.T, c *redis.Client, pairs ...string) {
	t.Helper()
	args := []any{"config", "set"}
	for _, p := range pairs {
		args = append(args, p)
	}
	if err := c.Do(t.Context(), args...).Err(); err != nil {
		t.Fatalf("CONFIG SET %v: %v", pairs, err)
	}
}

func TestMaxmemoryInfoAndConfig(t *testing.T) {
	e := newEnv(t)
	c := e.client(2)
	ctx := t.Context()
	if got := infoInt(t, e, "memory", "used_memory"); got != kv.StartupMemory {
		t.Fatalf("empty used_memory %d", got)
	}
	c.Set(ctx, "k1", "hello", 0)
	c.Set(ctx, "k2", "x", 0)
	dataset := keyCost("k1", "hello") + keyCost("k2", "x")
	if got := infoInt(t, e, "memory", "used_memory_dataset"); got != dataset {
		t.Fatalf("used_memory_dataset %d, want %d", got, dataset)
	}
	if got := infoInt(t, e, "memory", "used_memory"); got != kv.StartupMemory+dataset {
		t.Fatalf("used_memory %d, want %d", got, kv.StartupMemory+dataset)
	}
	if got := c.MemoryUsage(ctx, "k1").Val(); got != keyCost("k1", "hello") {
		t.Fatalf("MEMORY USAGE %d, want what the key counts, %d", got, keyCost("k1", "hello"))
	}
	configSet(t, c, "maxmemory", "10mb", "maxmemory-policy", "ALLKEYS-LFU")
	for field, want := range map[string]string{
		"maxmemory": "10485760", "maxmemory_human": "10.00M", "maxmemory_policy": "allkeys-lfu", "mem_not_counted_for_evict": "0",
	} {
		if got := infoField(t, e, "memory", field); got != want {
			t.Errorf("INFO %s = %q, want %q", field, got, want)
		}
	}
	if got := c.ConfigGet(ctx, "maxmemory-policy").Val()["maxmemory-policy"]; got != "allkeys-lfu" {
		t.Errorf("CONFIG GET maxmemory-policy %q", got)
	}
	ev := e.kv.Eviction()
	if ev.MaxMemory != 10<<20 || ev.Policy != kv.PolicyAllKeysLFU || ev.Samples != 5 || ev.Tenacity != 10 || ev.LFULogFactor != 10 || ev.LFUDecayTime != 1 {
		t.Fatalf("store's eviction %+v", ev)
	}
	configSet(t, c, "maxmemory-samples", "10", "maxmemory-eviction-tenacity", "50", "lfu-log-factor", "3", "lfu-decay-time", "0")
	ev = e.kv.Eviction()
	if ev.Samples != 10 || ev.Tenacity != 50 || ev.LFULogFactor != 3 || ev.LFUDecayTime != 0 {
		t.Fatalf("after CONFIG SET: %+v", ev)
	}
	err := c.ConfigSet(ctx, "maxmemory-policy", "lru").Err()
	if err == nil || !strings.Contains(err.Error(), "argument(s) must be one of the following") {
		t.Fatalf("a bad policy: %v", err)
	}
}

func TestMaxmemoryEvictsAtOnceAfterConfigSet(t *testing.T) {
	e := newEnv(t)
	c := e.client(2)
	ctx := t.Context()
	for i := range 100 {
		c.Set(ctx, fmt.Sprintf("key:%03d", i), "v", 0)
	}
	limit := kv.StartupMemory + 40*keyCost("key:000", "v")
	configSet(t, c, "maxmemory-policy", "allkeys-random", "maxmemory", strconv.FormatInt(limit, 10))
	if err := c.Ping(ctx).Err(); err != nil { // the next command evicts
		t.Fatal(err)
	}
	if n := c.DBSize(ctx).Val(); n != 40 {
		t.Fatalf("dbsize %d, want 40", n)
	}
	if got := infoInt(t, e, "stats", "evicted_keys"); got != 60 {
		t.Fatalf("evicted_keys %d, want 60", got)
	}
	if got := infoInt(t, e, "memory", "used_memory"); got > limit {
		t.Fatalf("used_memory %d over %d", got, limit)
	}
	// A cache keeps taking writes and stays at its bound.
	for i := range 100 {
		if err := c.Set(ctx, fmt.Sprintf("new:%03d", i), "v", 0).Err(); err != nil {
			t.Fatal(err)
		}
	}
	if got := infoInt(t, e, "memory", "used_memory"); got > limit+keyCost("new:000", "v") {
		t.Fatalf("used_memory %d over %d", got, limit)
	}
	c.ConfigResetStat(ctx)
	if got := infoInt(t, e, "stats", "evicted_keys"); got != 0 {
		t.Fatalf("evicted_keys after RESETSTAT %d", got)
	}
}

func TestMaxmemoryOOM(t *testing.T) {
	e := newEnv(t)
	c := e.client(2)
	ctx := t.Context()
	c.Set(ctx, "persistent", "v", 0)
	configSet(t, c, "maxmemory-policy", "noeviction", "maxmemory", "1")
	if err := c.Set(ctx, "k", "v", 0).Err(); err == nil || err.Error() != oomErr {
		t.Fatalf("SET under noeviction: %v", err)
	}
	if got := c.Get(ctx, "persistent").Val(); got != "v" {
		t.Fatalf("GET (not denyoom) %q", got)
	}
	if err := c.Del(ctx, "nothing").Err(); err != nil {
		t.Fatalf("DEL (not denyoom): %v", err)
	}
	// volatile-* with no volatile key cannot evict either.
	configSet(t, c, "maxmemory-policy", "volatile-lru")
	if err := c.LPush(ctx, "l", "a").Err(); err == nil || err.Error() != oomErr {
		t.Fatalf("LPUSH under volatile-lru and no volatile key: %v", err)
	}
	if n := c.Exists(ctx, "persistent").Val(); n != 1 {
		t.Fatal("a key without an expiry was evicted")
	}
	// Inside MULTI every command but EXEC and DISCARD is refused, and EXEC
	// then aborts.
	tx := e.client(2)
	conn := tx.Conn()
	defer conn.Close()
	if err := conn.Do(ctx, "multi").Err(); err != nil {
		t.Fatal(err)
	}
	if err := conn.Do(ctx, "ping").Err(); err == nil || err.Error() != oomErr {
		t.Fatalf("PING in MULTI: %v", err)
	}
	if err := conn.Do(ctx, "exec").Err(); err == nil || !strings.HasPrefix(err.Error(), "EXECABORT") {
		t.Fatalf("EXEC: %v", err)
	}
	if err := conn.Do(ctx, "multi").Err(); err != nil {
		t.Fatal(err)
	}
	if err := conn.Do(ctx, "discard").Err(); err != nil {
		t.Fatalf("DISCARD: %v", err)
	}
	// EXEC of a transaction queued before the limit aborts with the reason.
	configSet(t, c, "maxmemory", "0")
	conn.Do(ctx, "multi")
	conn.Do(ctx, "set", "a", "1")
	configSet(t, c, "maxmemory", "1")
	err := conn.Do(ctx, "exec").Err()
	if want := "EXECABORT Transaction discarded because of: " + oomErr; err == nil || err.Error() != want {
		t.Fatalf("EXEC: %v, want %q", err, want)
	}
	if n := c.Exists(ctx, "a").Val(); n != 0 {
		t.Fatal("the aborted EXEC wrote")
	}
	if err := conn.Do(ctx, "ping").Err(); err != nil {
		t.Fatalf("after the abort the client is out of MULTI: %v", err)
	}
}

func TestMaxmemoryScripts(t *testing.T) {
	e := newEnv(t)
	c := e.client(2)
	ctx := t.Context()
	configSet(t, c, "maxmemory", "1")
	// A script without a shebang runs; its first write is refused.
	err := c.Eval(ctx, "return redis.call('set', 'x', 1)", nil).Err()
	if err == nil || !strings.Contains(err.Error(), "command not allowed when used memory") {
		t.Fatalf("write of a legacy script: %v", err)
	}
	if got := infoField(t, e, "commandstats", "cmdstat_set"); !strings.HasPrefix(got, "calls=0,") || !strings.Contains(got, "rejected_calls=1,") {
		t.Fatalf("cmdstat_set %q: the refused SET counts as rejected", got)
	}
	if got := c.Eval(ctx, "return redis.call('get', 'x')", nil).Err(); got != redis.Nil {
		t.Fatalf("read of a legacy script: %v", got)
	}
	// A script declaring flags without no-writes or allow-oom is refused
	// up front.
	err = c.Eval(ctx, "#!lua\nreturn 1", nil).Err()
	if err == nil || err.Error() != oomErr {
		t.Fatalf("a #!lua script: %v", err)
	}
	if got := c.Eval(ctx, "#!lua flags=no-writes\nreturn 1", nil).Val(); got != int64(1) {
		t.Fatalf("a no-writes script: %v", got)
	}
	if err := c.Eval(ctx, "#!lua flags=allow-oom\nreturn redis.call('set', 'x', 1)", nil).Err(); err != nil {
		t.Fatalf("an allow-oom script: %v", err)
	}
	if got := c.Get(ctx, "x").Val(); got != "1" {
		t.Fatalf("x = %q", got)
	}
	configSet(t, c, "maxmemory", "0")
	if err := c.Eval(ctx, "#!lua\nreturn redis.call('set', 'y', 1)", nil).Err(); err != nil {
		t.Fatalf("without maxmemory: %v", err)
	}
}

func TestMaxmemoryPoliciesOverTheWire(t *testing.T) {
	cost := keyCost("key:00", "v")
	for _, policy := range []string{"allkeys-lru", "allkeys-lfu", "allkeys-random", "volatile-lru", "volatile-lfu", "volatile-random", "volatile-ttl"} {
		t.Run(policy, func(t *testing.T) {
			e := newEnv(t)
			c := e.client(2)
			ctx := t.Context()
			for i := range 40 {
				ttl := time.Duration(0)
				if i%2 == 0 {
					ttl = time.Hour + time.Duration(i)*time.Second
				}
				c.Set(ctx, fmt.Sprintf("key:%02d", i), "v", ttl)
				e.clock.Advance(time.Second)
			}
			configSet(t, c, "maxmemory-policy", policy, "maxmemory", strconv.FormatInt(kv.StartupMemory+30*cost, 10))
			c.Ping(ctx)
			if n := c.DBSize(ctx).Val(); n != 30 {
				t.Fatalf("dbsize %d, want 30", n)
			}
			if strings.HasPrefix(policy, "volatile-") {
				for i := 1; i < 40; i += 2 {
					if c.Exists(ctx, fmt.Sprintf("key:%02d", i)).Val() != 1 {
						t.Fatalf("key:%02d has no expiry and was evicted", i)
					}
				}
			}
			if policy == "volatile-ttl" {
				for i := 0; i < 40; i += 2 {
					want := int64(1) // the 10 nearest expiries go
					if i < 20 {
						want = 0
					}
					if got := c.Exists(ctx, fmt.Sprintf("key:%02d", i)).Val(); got != want {
						t.Fatalf("key:%02d exists %d, want %d", i, got, want)
					}
				}
			}
		})
	}
}

func TestMaxmemoryEvictedEvent(t *testing.T) {
	e := newEnv(t)
	c := e.client(2)
	ctx := t.Context()
	configSet(t, c, "notify-keyspace-events", "Ee")
	_, next := keyevents(t, e)
	c.Set(ctx, "soon", "v", time.Minute)
	c.Set(ctx, "later", "v", time.Hour)
	configSet(t, c, "maxmemory-policy", "volatile-ttl", "maxmemory", strconv.FormatInt(kv.StartupMemory+keyCost("later", "v"), 10))
	c.Ping(ctx)
	if got := next(1); got[0] != "evicted soon" {
		t.Fatalf("events %v", got)
	}
	if c.Exists(ctx, "later").Val() != 1 {
		t.Fatal("later was evicted too")
	}
}

func TestObjectFreqAndIdleUnderPolicies(t *testing.T) {
	e := newEnv(t)
	c := e.client(2)
	ctx := t.Context()
	c.Set(ctx, "k", "v", 0)
	e.clock.Advance(5 * time.Second)
	if got := c.ObjectIdleTime(ctx, "k").Val(); got != 5*time.Second {
		t.Fatalf("OBJECT IDLETIME %v", got)
	}
	if err := c.ObjectFreq(ctx, "k").Err(); err == nil || !strings.Contains(err.Error(), "An LFU maxmemory policy is not selected") {
		t.Fatalf("OBJECT FREQ without LFU: %v", err)
	}
	configSet(t, c, "maxmemory-policy", "allkeys-lfu", "lfu-log-factor", "0")
	if got := c.ObjectFreq(ctx, "k").Val(); got != 5 {
		t.Fatalf("OBJECT FREQ of a new key %d, want 5", got)
	}
	for range 3 {
		c.Get(ctx, "k")
	}
	c.Do(ctx, "debug", "object", "k") // DEBUG OBJECT and OBJECT do not count
	if got := c.ObjectFreq(ctx, "k").Val(); got != 8 {
		t.Fatalf("OBJECT FREQ after 3 reads at log factor 0: %d, want 8", got)
	}
	c.Touch(ctx, "k")
	if got := c.ObjectFreq(ctx, "k").Val(); got != 9 {
		t.Fatalf("after TOUCH %d, want 9", got)
	}
	e.clock.Advance(3 * time.Minute)
	if got := c.ObjectFreq(ctx, "k").Val(); got != 6 {
		t.Fatalf("after 3 minutes at lfu-decay-time 1: %d, want 6", got)
	}
	if err := c.ObjectIdleTime(ctx, "k").Err(); err == nil || !strings.Contains(err.Error(), "An LFU maxmemory policy is selected") {
		t.Fatalf("OBJECT IDLETIME under LFU: %v", err)
	}
}

// Ensure that the invalidation of a key evicted before a command reaches a
// RESP3 tracking client ahead of the command's reply, as in Redis.
func TestMaxmemoryEvictionInvalidatesBeforeTheReply(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	a := e.resp3Tracking()
	c := e.client(2)
	c.Set(ctx, "volatile-key", "x", time.Hour)
	expect(t, a.do("GET", "volatile-key"), "x")
	limit := kv.StartupMemory + keyCost("volatile-key", "x") + 10
	configSet(t, c, "maxmemory-policy", "volatile-random", "maxmemory", strconv.FormatInt(limit, 10))
	c.Set(ctx, "big", "0123456789", 0) // now over the limit
	a.send("GET", "big")
	expect(t, a.read(), ">[invalidate [volatile-key]]")
	expect(t, a.read(), "0123456789")
	if n := c.Exists(ctx, "volatile-key").Val(); n != 0 {
		t.Fatal("volatile-key was not evicted")
	}
	expect(t, a.do("PING"), "PONG") // nothing more was sent for it
}
