package resp_test

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/redis/go-redis/v9"
)

// step is one command of a scripted session and its expected reply: a
// string, int64, nil, []any, or an error text when err is set.
type step struct {
	args []any
	want any
	err  string
}

func ok(args ...any) step { return step{args: args, want: "OK"} }

func reply(want any, args ...any) step { return step{args: args, want: want} }

func fails(msg string, args ...any) step { return step{args: args, err: msg} }

// runSteps runs a session; a step with args nil advances the fake clock by
// want (a time.Duration).
func runSteps(t *testing.T, e *env, c *redis.Client, steps []step) {
	t.Helper()
	for i, s := range steps {
		got, err := c.Do(t.Context(), s.args...).Result()
		if s.err != "" {
			if err == nil || err.Error() != s.err {
				t.Fatalf("step %d %v: err = %v, want %q", i, s.args, err, s.err)
			}
			continue
		}
		if err == redis.Nil {
			got, err = nil, nil
		}
		if err != nil {
			t.Fatalf("step %d %v: unexpected error %v", i, s.args, err)
		}
		if !reflect.DeepEqual(got, s.want) {
			t.Fatalf("step %d %v: got %#v, want %#v", i, s.args, got, s.want)
		}
	}
}

func TestCommandErrors(t *testing.T) {
	e := newEnv(t)
	c := e.client(2)
	runSteps(t, e, c, []step{
		fails("ERR unknown command 'foo', with args beginning with: 'a' 'b' ", "foo", "a", "b"),
		fails("ERR wrong number of arguments for 'get' command", "get"),
		fails("ERR wrong number of arguments for 'config|get' command", "config", "get"),
		fails("ERR unknown subcommand 'foo'. Try CLIENT HELP.", "client", "foo"),
		ok("set", "k", "v"),
		fails("ERR value is not an integer or out of range", "expire", "k", "ten"),
		fails("ERR value is not an integer or out of range", "expire", "k", "10s"),
		fails("ERR value is not an integer or out of range", "expire", "k", "2.5"),
		fails("ERR value is not an integer or out of range", "incr", "k"),
		fails("ERR syntax error", "set", "k", "v", "nx", "xx"),
		fails("ERR syntax error", "set", "k", "v", "ex", "10", "px", "10"),
		fails("ERR syntax error", "set", "k", "v", "keepttl", "ex", "1"),
		fails("ERR invalid expire time in 'set' command", "set", "k", "v", "ex", "0"),
		fails("ERR invalid expire time in 'set' command", "set", "k", "v", "px", "-1"),
		fails("ERR invalid expire time in 'set' command", "set", "k", "v", "ex", "9999999999999999"),
		fails("ERR invalid expire time in 'setex' command", "setex", "k", "0", "v"),
		fails("ERR invalid expire time in 'psetex' command", "psetex", "k", "-5", "v"),
		fails("ERR invalid expire time in 'getex' command", "getex", "k", "px", "0"),
		fails("ERR invalid expire time in 'expire' command", "expire", "k", "9999999999999999"),
		fails("ERR invalid expire time in 'pexpire' command", "pexpire", "k", "9223372036854775807"),
		fails("ERR NX and XX, GT or LT options at the same time are not compatible", "expire", "k", "10", "nx", "xx"),
		fails("ERR NX and XX, GT or LT options at the same time are not compatible", "expire", "k", "10", "nx", "gt"),
		fails("ERR GT and LT options at the same time are not compatible", "expire", "k", "10", "gt", "lt"),
		fails("ERR Unsupported option foo", "expire", "k", "10", "foo"),
		fails("ERR syntax error", "getex", "k", "persist", "ex", "1"),
		fails("ERR no such key", "rename", "nokey", "x"),
		fails("ERR source and destination objects are the same", "move", "k", "0"),
		fails("ERR DB index is out of range", "move", "k", "99"),
		fails("ERR source and destination objects are the same", "copy", "k", "k"),
		fails("ERR DB index is out of range", "select", "16"),
		fails("ERR value is not an integer or out of range", "select", "x"),
		fails("ERR invalid first DB index", "swapdb", "x", "1"),
		fails("ERR invalid second DB index", "swapdb", "1", "x"),
		fails("ERR syntax error", "scan", "0", "count", "0"),
		fails("ERR invalid cursor", "scan", "x"),
		fails("ERR offset is out of range", "setrange", "k", "-1", "x"),
		fails("ERR string exceeds maximum allowed size (proto-max-bulk-len)", "setrange", "k", "536870912", "x"),
		ok("set", "n", "9223372036854775807"),
		fails("ERR increment or decrement would overflow", "incr", "n"),
		fails("ERR decrement would overflow", "decrby", "n", "-9223372036854775808"),
		fails("ERR value is not a valid float", "incrbyfloat", "k", "1"),
		fails("ERR value is not a valid float", "incrbyfloat", "n", "nan"),
		fails("ERR increment would produce NaN or Infinity", "incrbyfloat", "n", "inf"),
		fails("NOPROTO unsupported protocol version", "hello", "4"),
		fails("ERR Protocol version is not an integer or out of range", "hello", "x"),
		fails("ERR Syntax error in HELLO option 'foo'", "hello", "3", "foo"),
		fails("ERR AUTH <password> called without any password configured for the default user. Are you sure your configuration is correct?", "auth", "x"),
		fails("ERR EXEC without MULTI", "exec"),
		fails("ERR DISCARD without MULTI", "discard"),
		fails("ERR CONFIG SET failed (possibly related to argument 'notify-keyspace-events') - Invalid event class character. Use 'Ag$lshzxeKEtmdn'.",
			"config", "set", "notify-keyspace-events", "Q"),
		fails("ERR CONFIG SET failed (possibly related to argument 'active-expire-effort') - argument must be between 1 and 10 inclusive",
			"config", "set", "active-expire-effort", "11"),
		fails("ERR CONFIG SET failed (possibly related to argument 'databases') - can't set immutable config", "config", "set", "databases", "3"),
		fails("ERR Unknown option or number of arguments for CONFIG SET - 'foo'", "config", "set", "foo", "bar"),
		fails("ERR CONFIG SET failed (possibly related to argument 'hz') - duplicate parameter", "config", "set", "hz", "10", "hz", "11"),
		fails("ERR Client names cannot contain spaces, newlines or special characters.", "client", "setname", "a b"),
		fails("ERR client-id should be greater than 0", "client", "kill", "id", "x"),
		fails("ERR No such client", "client", "kill", "1.2.3.4:5"),
		fails("ERR FUNCTION FLUSH only supports SYNC|ASYNC option", "function", "flush", "x"),
		fails("ERR SCRIPT FLUSH only support SYNC|ASYNC option", "script", "flush", "x"),
	})
}

func TestWrongType(t *testing.T) {
	e := newEnv(t)
	c := e.client(2)
	// kv has no list commands yet: write a non-string record directly.
	tx := e.kv.Begin()
	m, found, _ := tx.Lookup([]byte("l"))
	_ = m
	if err := tx.PutMeta([]byte("l"), m, found, kvList(tx)); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	const wt = "WRONGTYPE Operation against a key holding the wrong kind of value"
	runSteps(t, e, c, []step{
		reply("list", "type", "l"),
		fails(wt, "get", "l"),
		fails(wt, "incr", "l"),
		fails(wt, "append", "l", "x"),
		fails(wt, "getdel", "l"),
		fails(wt, "getex", "l"),
		fails(wt, "set", "l", "v", "get"),
		fails(wt, "getset", "l", "v"),
		fails(wt, "strlen", "l"),
		reply([]any{nil}, "mget", "l"),
		reply(int64(1), "expire", "l", "100"),
		reply(int64(100), "ttl", "l"),
		ok("set", "l", "v"),
		reply(int64(-1), "ttl", "l"),
		reply("string", "type", "l"),
	})
}

// TestSeedSessions replays the redis-cli sessions of the Turkish seed
// document on key expiry, with the clock frozen between commands.
func TestSeedSessions(t *testing.T) {
	e := newEnv(t)
	c := e.client(2)
	runSteps(t, e, c, []step{
		ok("set", "key", "some-value"),
		reply(int64(1), "expire", "key", "5"),
		reply("some-value", "get", "key"),
	})
	e.clock.Advance(5001 * 1e6)
	runSteps(t, e, c, []step{
		reply(nil, "get", "key"),
		ok("SET", "mykey", "Hello"),
		reply(int64(1), "EXPIRE", "mykey", "10"),
		reply(int64(10), "TTL", "mykey"),
		ok("SET", "mykey", "Hello World"),
		reply(int64(-1), "TTL", "mykey"),
		reply(int64(0), "EXPIRE", "mykey", "10", "XX"),
		reply(int64(-1), "TTL", "mykey"),
		reply(int64(1), "EXPIRE", "mykey", "10", "NX"),
		reply(int64(10), "TTL", "mykey"),
		fails("ERR value is not an integer or out of range", "EXPIRE", "counter", "ten"),
		ok("SET", "mykey", "Hello"),
		reply(int64(1), "PEXPIRE", "mykey", "1500"),
		reply(int64(2), "TTL", "mykey"),
		reply(int64(1500), "PTTL", "mykey"),
		reply(int64(1), "PEXPIRE", "mykey", "1000", "XX"),
		reply(int64(1), "TTL", "mykey"),
		reply(int64(0), "PEXPIRE", "mykey", "1000", "NX"),
		reply(int64(1), "TTL", "mykey"),
		ok("SET", "mykey", "Hello"),
		reply(int64(1), "EXISTS", "mykey"),
		reply(int64(1), "EXPIREAT", "mykey", "1293840000"),
		reply(int64(0), "EXISTS", "mykey"),
		ok("SET", "mykey", "Hello"),
		reply(int64(1), "PEXPIREAT", "mykey", "1555555555005"),
		reply(int64(-2), "TTL", "mykey"),
		reply(int64(-2), "PTTL", "mykey"),
		ok("SET", "mykey", "Hello"),
		reply(int64(1), "EXPIRE", "mykey", "1"),
		reply(int64(1000), "PTTL", "mykey"),
		ok("SET", "mykey", "Hello"),
		reply(int64(1), "EXPIREAT", "mykey", "33177117420"),
		reply(int64(33177117420), "EXPIRETIME", "mykey"),
		ok("SET", "mykey", "Hello"),
		reply(int64(1), "EXPIRE", "mykey", "10"),
		reply(int64(10), "TTL", "mykey"),
		reply(int64(1), "PERSIST", "mykey"),
		reply(int64(-1), "TTL", "mykey"),
		ok("set", "key", "100", "ex", "10"),
		reply(int64(10), "ttl", "key"),
	})
}

func TestExpiryFamily(t *testing.T) {
	e := newEnv(t)
	c := e.client(2)
	now := int64(start0)
	runSteps(t, e, c, []step{
		// GT and LT: no TTL counts as infinite.
		ok("set", "a", "1"),
		reply(int64(0), "expire", "a", "100", "gt"),
		reply(int64(1), "expire", "a", "100", "lt"),
		reply(int64(0), "expire", "a", "200", "lt"),
		reply(int64(0), "expire", "a", "50", "gt"),
		reply(int64(1), "expire", "a", "50", "lt"),
		reply(int64(1), "expire", "a", "60", "xx", "gt"),
		reply(int64(0), "expire", "a", "70", "xx", "lt"),
		reply(int64(60), "ttl", "a"),
		// What keeps a TTL and what clears it.
		reply(int64(2), "incr", "a"),
		reply(int64(60), "ttl", "a"),
		reply(int64(2), "append", "a", "x"),
		reply(int64(60), "ttl", "a"),
		reply(int64(2), "setrange", "a", "0", "y"),
		reply(int64(60), "ttl", "a"),
		ok("set", "a", "v", "keepttl"),
		reply(int64(60), "ttl", "a"),
		reply("1.5", "incrbyfloat", "f", "1.5"),
		reply("v", "getset", "a", "w"),
		reply(int64(-1), "ttl", "a"),
		reply(int64(1), "expire", "a", "60"),
		ok("set", "a", "z"),
		reply(int64(-1), "ttl", "a"),
		// RENAME moves the TTL; overwriting takes all of the source.
		ok("set", "src", "1", "ex", "100"),
		ok("set", "dst", "2"),
		ok("rename", "src", "dst"),
		reply(int64(100), "ttl", "dst"),
		reply(int64(-2), "ttl", "src"),
		reply(int64(1), "copy", "dst", "cp"),
		reply(int64(100), "ttl", "cp"),
		ok("set", "plain", "x"),
		reply(int64(1), "copy", "plain", "cp", "replace"),
		reply(int64(-1), "ttl", "cp"),
		reply(int64(1), "move", "dst", "1"),
		reply(int64(0), "exists", "dst"),
		// Absolute times.
		reply(int64(1), "pexpireat", "plain", fmt.Sprint(now+12345)),
		reply(now+12345, "pexpiretime", "plain"),
		reply((now+12345+500)/1000, "expiretime", "plain"),
		reply(int64(12345), "pttl", "plain"),
		reply(int64(12), "ttl", "plain"),
		reply(int64(-1), "pexpiretime", "cp"),
		reply(int64(-2), "expiretime", "nokey"),
		reply(int64(0), "expire", "nokey", "10"),
		reply(int64(0), "persist", "nokey"),
		// Zero, negative and past times delete.
		ok("set", "z", "v"),
		reply(int64(1), "expire", "z", "0"),
		reply(int64(0), "exists", "z"),
		ok("set", "z", "v"),
		reply(int64(1), "pexpire", "z", "-5"),
		reply(int64(0), "exists", "z"),
		ok("set", "g", "v"),
		reply("v", "getex", "g", "exat", "1"),
		reply(int64(0), "exists", "g"),
		ok("set", "g", "v"),
		reply("v", "getex", "g", "px", "2000"),
		reply(int64(2000), "pttl", "g"),
		reply("v", "getex", "g", "persist"),
		reply(int64(-1), "pttl", "g"),
		reply(nil, "getex", "nokey", "ex", "0"),
		// SET with a past EXAT stores a key that is already expired.
		ok("set", "past", "v", "exat", "1"),
		reply(int64(0), "exists", "past"),
		reply(nil, "get", "past"),
		// MSETEX (Redis 8.4).
		reply(int64(1), "msetex", "2", "m1", "a", "m2", "b", "px", "5000"),
		reply(int64(5000), "pttl", "m2"),
		reply(int64(0), "msetex", "2", "m1", "a", "m3", "b", "nx", "ex", "5"),
		reply(int64(1), "msetex", "1", "m1", "c", "xx", "keepttl"),
		reply(int64(5000), "pttl", "m1"),
		fails("ERR invalid expire time in 'msetex' command", "msetex", "1", "m1", "c", "ex", "0"),
	})
}

// TestExpiredInvisible: an expired key disappears from every read path at
// once, before any deletion.
func TestExpiredInvisible(t *testing.T) {
	e := newEnv(t)
	c := e.client(2)
	runSteps(t, e, c, []step{
		ok("set", "live", "1"),
		ok("set", "dying", "1", "px", "100"),
		reply(int64(2), "dbsize"),
	})
	e.clock.Advance(100 * 1e6) // exactly at the expiry ms: still alive
	runSteps(t, e, c, []step{reply(int64(2), "dbsize"), reply(int64(1), "exists", "dying")})
	e.clock.Advance(1e6)
	runSteps(t, e, c, []step{
		reply(int64(1), "dbsize"),
		reply([]any{"live"}, "keys", "*"),
		reply([]any{"0", []any{"live"}}, "scan", "0", "count", "100"),
		reply("live", "randomkey"),
		reply("none", "type", "dying"),
		reply(int64(-2), "ttl", "dying"),
		reply(int64(0), "exists", "dying"),
		reply([]any{nil}, "mget", "dying"),
	})
	info, err := c.Info(t.Context(), "keyspace").Result()
	if err != nil {
		t.Fatal(err)
	}
	if want := "# Keyspace\r\ndb0:keys=1,expires=0,avg_ttl=0,subexpiry=0\r\n"; info != want {
		t.Fatalf("info keyspace %q, want %q", info, want)
	}
	if n := e.reap(); n != 0 {
		t.Fatalf("reaped %d, the lazy path already deleted the key", n)
	}
}

func TestScanPaging(t *testing.T) {
	e := newEnv(t)
	c := e.client(2)
	want := map[string]bool{}
	for i := range 95 {
		k := fmt.Sprintf("key:%03d", i)
		want[k] = true
		if err := c.Set(t.Context(), k, "v", 0).Err(); err != nil {
			t.Fatal(err)
		}
	}
	c.Set(t.Context(), "other", "v", 0)
	got := map[string]bool{}
	var cursor uint64
	for {
		keys, next, err := c.Scan(t.Context(), cursor, "key:*", 10).Result()
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range keys {
			got[k] = true
		}
		if next == 0 {
			break
		}
		cursor = next
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("scan found %d keys, want %d", len(got), len(want))
	}
	keys, _, err := c.ScanType(t.Context(), 0, "", 1000, "list").Result()
	if err != nil || len(keys) != 0 {
		t.Fatalf("scan type list: %v %v", keys, err)
	}
}
