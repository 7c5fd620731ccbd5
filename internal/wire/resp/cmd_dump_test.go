package resp_test

import (
	"bufio"
	"encoding/hex"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// redis70Dumps reads the DUMP payloads redis-server 7.0.15 gave for the
// values TestRedisDumpIsRedis70s builds (the rdb package's golden file).
func redis70Dumps(t *testing.T) map[string]string {
	t.Helper()
	f, err := os.Open("../../rdb/testdata/redis70_dumps.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]string{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if k, h, ok := strings.Cut(sc.Text(), " "); ok && !strings.HasPrefix(k, "#") {
			b, err := hex.DecodeString(h)
			if err != nil {
				t.Fatal(err)
			}
			out[k] = string(b)
		}
	}
	return out
}

// redis70Stream is redis-server 7.0.15's DUMP of a stream (XADD st 1-1 a 1).
var redis70Stream = func() string {
	b, _ := hex.DecodeString("130110000000000000000100000000000000011c1c0000000a00010100010101816102000102010001000101010401ff0101010101000001000a00297d780fd88aa62c")
	return string(b)
}()

func buildRedis70Values(t *testing.T, c *redis.Client) {
	t.Helper()
	items := []any{"rpush", "l2"}
	for i := 1; i <= 300; i++ {
		items = append(items, "item"+itoaTest(i))
	}
	for _, cmd := range [][]any{
		{"set", "s1", "hello"}, {"set", "s2", "12345"}, {"set", "s3", "-7"}, {"set", "s4", "4294967296000"},
		{"set", "s5", strings.Repeat("abc", 30)},
		{"set", "s6", "the quick brown fox jumps over the lazy dog the quick brown fox"},
		{"set", "s7", "0123456789abcdefghij0123456789ABCDEFGHIJ01234567890123456789"},
		{"rpush", "l1", "a", "b", "c", "1", "200", "-5000", "70000"},
		{"sadd", "set1", "3", "1", "2", "-40000"}, {"sadd", "set2", "5"}, {"sadd", "set3", "9999999999", "1"},
		{"hset", "h1", "a", "1", "b", "hello"},
		{"zadd", "z1", "1", "a", "2.5", "b", "-3", "c", "0.1", "d", "1e20", "e"},
		items,
	} {
		if err := c.Do(t.Context(), cmd...).Err(); err != nil {
			t.Fatalf("%v: %v", cmd[:2], err)
		}
	}
}

func itoaTest(i int) string {
	if i == 0 {
		return "0"
	}
	var b []byte
	for ; i > 0; i /= 10 {
		b = append([]byte{byte('0' + i%10)}, b...)
	}
	return string(b)
}

// TestRedisDumpIsRedis70s: DUMP of the same values gives redis-server
// 7.0's bytes: integer and LZF strings, a quicklist of listpacks, intsets,
// listpack hashes and sorted sets.
func TestRedisDumpIsRedis70s(t *testing.T) {
	e := newEnv(t)
	c := e.client(2)
	buildRedis70Values(t, c)
	for k, want := range redis70Dumps(t) {
		if strings.HasPrefix(k, "st") {
			continue // streams: TestRedisDumpStreamIsRedis70s
		}
		got, err := c.Dump(t.Context(), k).Result()
		if err != nil {
			t.Fatalf("DUMP %s: %v", k, err)
		}
		if got != want {
			t.Errorf("DUMP %s\n got %x\nwant %x", k, got, want)
		}
	}
	if err := c.Dump(t.Context(), "missing").Err(); err != redis.Nil {
		t.Fatalf("DUMP of a missing key: %v, want nil", err)
	}
}

// TestRedisRestore: Redis's payloads restore to the values, with RESTORE's
// options and errors in Redis's order and words.
func TestRedisRestore(t *testing.T) {
	e := newEnv(t)
	c := e.client(2)
	ctx := t.Context()
	dumps := redis70Dumps(t)
	for k, p := range dumps {
		if err := c.Restore(ctx, "r:"+k, 0, p).Err(); err != nil {
			t.Fatalf("RESTORE %s: %v", k, err)
		}
	}
	runSteps(t, e, c, []step{
		reply("hello", "get", "r:s1"),
		reply("4294967296000", "get", "r:s4"),
		reply(strings.Repeat("abc", 30), "get", "r:s5"),
		reply([]any{"a", "b", "c", "1", "200", "-5000", "70000"}, "lrange", "r:l1", "0", "-1"),
		reply(int64(300), "llen", "r:l2"),
		reply("item300", "lindex", "r:l2", "-1"),
		reply([]any{"-40000", "1", "2", "3"}, "sort", "r:set1"),
		reply("hello", "hget", "r:h1", "b"),
		reply([]any{"c", "d", "a", "b", "e"}, "zrange", "r:z1", "0", "-1"),
		reply("2.5", "zscore", "r:z1", "b"),
		reply(int64(-1), "ttl", "r:s1"),

		fails("BUSYKEY Target key name already exists.", "restore", "r:s1", "0", dumps["s2"]),
		// BUSYKEY comes before the TTL and payload checks
		fails("BUSYKEY Target key name already exists.", "restore", "r:s1", "-1", "junk"),
		ok("restore", "r:s1", "0", dumps["s2"], "replace"),
		reply("12345", "get", "r:s1"),
		fails("ERR Invalid TTL value, must be >= 0", "restore", "n", "-1", dumps["s1"]),
		fails("ERR value is not an integer or out of range", "restore", "n", "x", dumps["s1"]),
		fails("ERR DUMP payload version or checksum are wrong", "restore", "n", "0", "junk"),
		fails("ERR DUMP payload version or checksum are wrong", "restore", "n", "0", dumps["s1"][:len(dumps["s1"])-1]+"x"),
		// a stream payload Redis 7.0 made
		ok("restore", "st", "0", redis70Stream),
		reply([]any{[]any{"1-1", []any{"a", "1"}}}, "xrange", "st", "-", "+"),
		fails("ERR syntax error", "restore", "n", "0", dumps["s1"], "bogus"),
		fails("ERR syntax error", "restore", "n", "0", dumps["s1"], "idletime"),
		fails("ERR Invalid IDLETIME value, must be >= 0", "restore", "n", "0", dumps["s1"], "idletime", "-1"),
		fails("ERR Invalid FREQ value, must be >= 0 and <= 255", "restore", "n", "0", dumps["s1"], "freq", "256"),
		fails("ERR syntax error", "restore", "n", "0", dumps["s1"], "idletime", "1", "freq", "2"),
		reply(int64(0), "exists", "n"),

		ok("restore", "t", "5000", dumps["s1"]),
		reply(int64(5000), "pttl", "t"),
		ok("restore", "abs", itoaTest(int(e.clock.Now().UnixMilli()+9000)), dumps["s1"], "absttl"),
		reply(int64(9000), "pttl", "abs"),
		// an absolute TTL already past: nothing created, a replaced key deleted
		ok("restore", "gone", "1", dumps["s1"], "absttl"),
		reply(int64(0), "exists", "gone"),
		ok("restore", "abs", "1", dumps["s1"], "absttl", "replace"),
		reply(int64(0), "exists", "abs"),

		ok("restore", "idle", "0", dumps["s1"], "idletime", "1000"),
		reply(int64(1000), "object", "idletime", "idle"),
		ok("restore-asking", "ra", "0", dumps["h1"]),
		reply("1", "hget", "ra", "a"),
	})
	e.clock.Advance(5001 * time.Millisecond)
	runSteps(t, e, c, []step{reply(int64(0), "exists", "t")})

	// FREQ sets the LFU counter under an LFU policy
	runSteps(t, e, c, []step{
		ok("config", "set", "maxmemory-policy", "allkeys-lfu"),
		ok("restore", "f", "0", dumps["s1"], "freq", "100"),
		reply(int64(100), "object", "freq", "f"),
		ok("config", "set", "maxmemory-policy", "noeviction"),
	})
}

// TestRedisRestoreEvents: RESTORE emits `restore`; one whose absolute TTL
// is past deletes the key it replaces with `del`.
func TestRedisRestoreEvents(t *testing.T) {
	e := newEnv(t)
	c := e.client(2)
	dumps := redis70Dumps(t)
	if err := c.ConfigSet(t.Context(), "notify-keyspace-events", "KEA").Err(); err != nil {
		t.Fatal(err)
	}
	_, next := keyevents(t, e)
	runSteps(t, e, c, []step{
		ok("restore", "k", "0", dumps["l1"]),
		ok("restore", "k", "0", dumps["s1"], "replace"),
		ok("restore", "k", "1", dumps["s1"], "replace", "absttl"),
		ok("set", "end", "x"),
	})
	got := next(4)
	want := []string{"restore k", "restore k", "del k", "set end"}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("events %v, want %v", got, want)
	}
}

// TestRedisObjectEncodingFollowsConfig: OBJECT ENCODING answers what Redis
// 7.0 would for the value's size under the CONFIG limits.
func TestRedisObjectEncodingFollowsConfig(t *testing.T) {
	e := newEnv(t)
	c := e.client(2)
	long := strings.Repeat("x", 65)
	runSteps(t, e, c, []step{
		ok("set", "int", "123"),
		ok("set", "emb", strings.Repeat("e", 44)),
		ok("set", "raw", strings.Repeat("r", 45)),
		reply("int", "object", "encoding", "int"),
		reply("embstr", "object", "encoding", "emb"),
		reply("raw", "object", "encoding", "raw"),
		reply(int64(3), "rpush", "l", "a", "b", "c"),
		reply("quicklist", "object", "encoding", "l"),
		reply(int64(3), "sadd", "is", "1", "2", "3"),
		reply("intset", "object", "encoding", "is"),
		reply(int64(1), "sadd", "is", "x"),
		reply("hashtable", "object", "encoding", "is"),
		reply(int64(2), "hset", "h", "f", "v", "g", "w"),
		reply("listpack", "object", "encoding", "h"),
		reply(int64(1), "hset", "hl", "f", long),
		reply("hashtable", "object", "encoding", "hl"),
		reply(int64(2), "zadd", "z", "1", "a", "2", "b"),
		reply("listpack", "object", "encoding", "z"),
		reply(int64(1), "zadd", "zl", "1", long),
		reply("skiplist", "object", "encoding", "zl"),

		ok("config", "set", "set-max-intset-entries", "2"),
		ok("config", "set", "hash-max-listpack-entries", "1"),
		ok("config", "set", "zset-max-listpack-entries", "1"),
		reply(int64(2), "sadd", "is2", "1", "2"),
		reply("intset", "object", "encoding", "is2"),
		reply(int64(1), "sadd", "is2", "3"),
		reply("hashtable", "object", "encoding", "is2"),
		reply("hashtable", "object", "encoding", "h"),
		reply("skiplist", "object", "encoding", "z"),
		ok("config", "set", "hash-max-listpack-value", "100"),
		ok("config", "set", "hash-max-listpack-entries", "10"),
		reply("listpack", "object", "encoding", "hl"),
		reply(nil, "object", "encoding", "missing"),
	})
}

// TestRedisSingleNodeCommands: the cluster and replication commands answer
// as a Redis master without cluster support or replicas does.
func TestRedisSingleNodeCommands(t *testing.T) {
	e := newEnv(t)
	c := e.client(2)
	runSteps(t, e, c, []step{
		fails("ERR This instance has cluster support disabled", "cluster", "info"),
		fails("ERR This instance has cluster support disabled", "readonly"),
		fails("ERR This instance has cluster support disabled", "readwrite"),
		fails("ERR This instance has cluster support disabled", "asking"),
		reply([]any{"master", int64(0), []any{}}, "role"),
		reply(int64(0), "wait", "1", "100"),
		fails("ERR timeout is negative", "wait", "0", "-1"),
		fails("ERR value is not an integer or out of range", "wait", "x", "0"),
		ok("replicaof", "no", "one"),
		ok("slaveof", "NO", "ONE"),
		fails("ERR mayfly does not replicate: only REPLICAOF NO ONE is accepted", "replicaof", "127.0.0.1", "6380"),
		fails("ERR FAILOVER requires connected replicas.", "failover"),
		fails("ERR No failover in progress.", "failover", "abort"),
		reply("Background append only file rewriting started", "bgrewriteaof"),
		reply([]any{}, "module", "list"),
		fails("ERR Error loading the extension. Please check the server logs.", "module", "load", "/x.so"),
		fails("ERR Error unloading module: no such module with that name", "module", "unload", "x"),
	})
}
