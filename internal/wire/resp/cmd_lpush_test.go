package resp_test

import (
	"testing"
	"time"
)

func TestListCommands(t *testing.T) {
	e := newEnv(t)
	c := e.client(2)
	runSteps(t, e, c, []step{
		reply(int64(0), "lpushx", "l", "a"),
		reply(int64(3), "rpush", "l", "a", "b", "c"),
		reply(int64(5), "lpush", "l", "y", "x"),
		reply([]any{"x", "y", "a", "b", "c"}, "lrange", "l", "0", "-1"),
		reply([]any{"b", "c"}, "lrange", "l", "-2", "100"),
		reply([]any{}, "lrange", "l", "4", "2"),
		reply([]any{}, "lrange", "nokey", "0", "-1"),
		reply(int64(6), "rpushx", "l", "z"),
		reply(int64(6), "llen", "l"),
		reply(int64(0), "llen", "nokey"),
		reply("a", "lindex", "l", "2"),
		reply("z", "lindex", "l", "-1"),
		reply(nil, "lindex", "l", "99"),
		reply(nil, "lindex", "nokey", "notanumber"),
		ok("lset", "l", "0", "X"),
		fails("ERR index out of range", "lset", "l", "99", "v"),
		fails("ERR no such key", "lset", "nokey", "0", "v"),
		fails("ERR no such key", "lset", "nokey", "x", "v"),
		fails("ERR value is not an integer or out of range", "lset", "l", "x", "v"),
		reply("X", "lpop", "l"),
		reply("z", "rpop", "l"),
		reply([]any{"y", "a"}, "lpop", "l", "2"),
		reply([]any{}, "lpop", "l", "0"),
		reply(nil, "lpop", "nokey"),
		reply(nil, "lpop", "nokey", "2"),
		fails("ERR value is out of range, must be positive", "lpop", "l", "-1"),
		fails("ERR value is out of range, must be positive", "lpop", "l", "x"),
		fails("ERR wrong number of arguments for 'lpop' command", "lpop", "l", "1", "2"),
		reply([]any{"c", "b"}, "rpop", "l", "5"),
		reply(int64(0), "exists", "l"),
	})
}

func TestListEditCommands(t *testing.T) {
	e := newEnv(t)
	c := e.client(2)
	runSteps(t, e, c, []step{
		reply(int64(6), "rpush", "l", "a", "b", "a", "c", "a", "d"),
		reply(int64(1), "lrem", "l", "-1", "a"),
		reply([]any{"a", "b", "a", "c", "d"}, "lrange", "l", "0", "-1"),
		reply(int64(2), "lrem", "l", "0", "a"),
		reply(int64(0), "lrem", "l", "0", "zz"),
		reply(int64(0), "lrem", "nokey", "0", "a"),
		reply(int64(4), "linsert", "l", "BEFORE", "c", "b2"),
		reply(int64(5), "linsert", "l", "after", "d", "e"),
		reply(int64(-1), "linsert", "l", "after", "zz", "e"),
		reply(int64(0), "linsert", "nokey", "after", "zz", "e"),
		fails("ERR syntax error", "linsert", "l", "middle", "c", "x"),
		reply([]any{"b", "b2", "c", "d", "e"}, "lrange", "l", "0", "-1"),
		ok("ltrim", "l", "1", "-2"),
		reply([]any{"b2", "c", "d"}, "lrange", "l", "0", "-1"),
		ok("ltrim", "nokey", "0", "1"),
		fails("ERR value is not an integer or out of range", "ltrim", "l", "a", "1"),
		ok("ltrim", "l", "5", "1"),
		reply(int64(0), "exists", "l"),
		reply(int64(7), "rpush", "p", "a", "b", "c", "1", "2", "3", "c"),
		reply(int64(2), "lpos", "p", "c"),
		reply(int64(6), "lpos", "p", "c", "rank", "-1"),
		reply(int64(6), "lpos", "p", "c", "rank", "2"),
		reply(nil, "lpos", "p", "c", "rank", "3"),
		reply([]any{int64(2), int64(6)}, "lpos", "p", "c", "count", "0"),
		reply([]any{int64(2)}, "lpos", "p", "c", "count", "0", "maxlen", "5"),
		reply([]any{}, "lpos", "p", "zz", "count", "1"),
		reply(nil, "lpos", "nokey", "a"),
		reply([]any{}, "lpos", "nokey", "a", "count", "2"),
		fails("ERR RANK can't be zero: use 1 to start from the first match, 2 from the second ... or use negative to start from the end of the list", "lpos", "p", "c", "rank", "0"),
		fails("ERR COUNT can't be negative", "lpos", "p", "c", "count", "-1"),
		fails("ERR MAXLEN can't be negative", "lpos", "p", "c", "maxlen", "-1"),
		fails("ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807", "lpos", "p", "c", "rank", "-9223372036854775808"),
		fails("ERR syntax error", "lpos", "p", "c", "rank"),
	})
}

func TestListMoveCommands(t *testing.T) {
	e := newEnv(t)
	c := e.client(2)
	runSteps(t, e, c, []step{
		reply(int64(3), "rpush", "src", "a", "b", "c"),
		reply("c", "rpoplpush", "src", "dst"),
		reply("a", "lmove", "src", "dst", "LEFT", "RIGHT"),
		reply([]any{"c", "a"}, "lrange", "dst", "0", "-1"),
		reply("c", "lmove", "dst", "dst", "left", "right"),
		reply([]any{"a", "c"}, "lrange", "dst", "0", "-1"),
		reply(nil, "lmove", "nokey", "dst", "left", "right"),
		fails("ERR syntax error", "lmove", "src", "dst", "up", "right"),
		ok("set", "str", "v"),
		fails("WRONGTYPE Operation against a key holding the wrong kind of value", "lmove", "src", "str", "left", "right"),
		fails("WRONGTYPE Operation against a key holding the wrong kind of value", "rpush", "str", "x"),
		fails("WRONGTYPE Operation against a key holding the wrong kind of value", "lrange", "str", "0", "1"),
		fails("WRONGTYPE Operation against a key holding the wrong kind of value", "lindex", "str", "0"),
		fails("WRONGTYPE Operation against a key holding the wrong kind of value", "lset", "str", "x", "v"),
		reply(nil, "lmove", "nokey", "str", "left", "right"),
		reply("b", "lmove", "src", "dst", "left", "left"),
		reply(int64(0), "exists", "src"),
	})
}

// TestListTTLRules checks Redis's TTL rules for lists: LPUSH/RPUSH keep
// the key's TTL, the
// MULTI/RPUSH/EXPIRE/EXEC page-view pattern refreshes it, and the list is
// deleted once it expires.
func TestListTTLRules(t *testing.T) {
	e := newEnv(t)
	c := e.client(2)
	runSteps(t, e, c, []step{
		reply(int64(1), "rpush", "pageviews.user:1", "/home"),
		reply(int64(1), "expire", "pageviews.user:1", "60"),
		reply(int64(2), "lpush", "pageviews.user:1", "/cart"),
		reply(int64(60), "ttl", "pageviews.user:1"),
	})
	for i := range 3 {
		e.clock.Advance(30 * time.Second)
		pipe := c.TxPipeline()
		push := pipe.RPush(t.Context(), "pageviews.user:1", "/page")
		exp := pipe.Expire(t.Context(), "pageviews.user:1", time.Minute)
		if _, err := pipe.Exec(t.Context()); err != nil {
			t.Fatal(err)
		}
		if push.Val() != int64(3+i) || !exp.Val() {
			t.Fatalf("round %d: rpush %d expire %v", i, push.Val(), exp.Val())
		}
	}
	runSteps(t, e, c, []step{
		reply(int64(60), "ttl", "pageviews.user:1"),
		reply(int64(5), "llen", "pageviews.user:1"),
	})
	e.clock.Advance(61 * time.Second)
	if n := e.reap(); n != 1 {
		t.Fatalf("reaped %d", n)
	}
	runSteps(t, e, c, []step{
		reply(int64(0), "llen", "pageviews.user:1"),
		reply(int64(-2), "ttl", "pageviews.user:1"),
	})
}

// TestListEvents checks the list events Redis sends, in order.
func TestListEvents(t *testing.T) {
	e := newEnv(t)
	c := e.client(2)
	runSteps(t, e, c, []step{ok("config", "set", "notify-keyspace-events", "KEA")})
	_, next := keyevents(t, e)
	runSteps(t, e, c, []step{
		reply(int64(2), "rpush", "l", "a", "b"),
		reply(int64(3), "lpush", "l", "c"),
		ok("lset", "l", "0", "x"),
		reply(int64(4), "linsert", "l", "before", "x", "w"),
		reply(int64(1), "lrem", "l", "1", "w"),
		reply("b", "rpoplpush", "l", "m"),
		ok("ltrim", "l", "0", "0"),
		reply("x", "lpop", "l"),
		reply("b", "rpop", "m"),
	})
	got := next(12)
	want := []string{"rpush l", "lpush l", "lset l", "linsert l", "lrem l", "lpush m", "rpop l",
		"ltrim l", "lpop l", "del l", "rpop m", "del m"}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("events %v, want %v", got, want)
		}
	}
}
