package resp_test

import (
	"reflect"
	"testing"
)

func TestZAddAndScores(t *testing.T) {
	e := newEnv(t)
	c := e.client(2)
	runSteps(t, e, c, []step{
		reply(int64(3), "zadd", "z", "1", "a", "2", "b", "3", "c"),
		reply(int64(0), "zadd", "z", "xx", "5", "zz"),
		reply(int64(1), "zadd", "z", "nx", "9", "a", "4", "d"),
		reply(int64(1), "zadd", "z", "ch", "gt", "0", "a", "10", "b"),
		reply(int64(0), "zadd", "z", "lt", "20", "b"),
		reply("10", "zscore", "z", "b"),
		reply("3.5", "zadd", "z", "incr", "2.5", "a"),
		reply(nil, "zadd", "z", "incr", "gt", "-1", "a"),
		reply(nil, "zadd", "nokey", "xx", "incr", "1", "a"),
		reply(int64(0), "exists", "nokey"),
		reply("1.1000000000000001", "zincrby", "z", "1.1", "new"),
		reply("inf", "zadd", "z", "incr", "+inf", "big"),
		fails("ERR resulting score is not a number (NaN)", "zincrby", "z", "-inf", "big"),
		fails("ERR wrong number of arguments for 'zadd' command", "zadd", "z", "1"),
		fails("ERR syntax error", "zadd", "z", "nx", "1"),
		fails("ERR syntax error", "zadd", "z", "nx", "ch"),
		fails("ERR XX and NX options at the same time are not compatible", "zadd", "z", "nx", "xx", "1", "a"),
		fails("ERR GT, LT, and/or NX options at the same time are not compatible", "zadd", "z", "gt", "lt", "1", "a"),
		fails("ERR GT, LT, and/or NX options at the same time are not compatible", "zadd", "z", "nx", "gt", "1", "a"),
		fails("ERR INCR option supports a single increment-element pair", "zadd", "z", "incr", "1", "a", "2", "b"),
		fails("ERR value is not a valid float", "zadd", "z", "abc", "a"),
		fails("ERR value is not a valid float", "zadd", "z", "nan", "a"),
		fails("ERR value is not a valid float", "zincrby", "z", "x", "a"),
		reply(int64(6), "zcard", "z"),
		reply(int64(0), "zcard", "nokey"),
		reply(nil, "zscore", "z", "zz"),
		reply([]any{"3.5", nil, "10"}, "zmscore", "z", "a", "zz", "b"),
		reply([]any{nil}, "zmscore", "nokey", "a"),
		reply(int64(2), "zrem", "z", "a", "zz", "b"),
		reply(int64(0), "zrem", "nokey", "a"),
		ok("set", "str", "v"),
		fails(wrongType, "zadd", "str", "1", "a"),
		fails(wrongType, "zscore", "str", "a"),
		fails(wrongType, "zmscore", "str", "a"),
	})
	// RESP3 doubles.
	c3 := e.client(3)
	v, err := c3.Do(t.Context(), "zscore", "z", "c").Result()
	if err != nil || v != 3.0 {
		t.Fatalf("RESP3 ZSCORE %#v %v", v, err)
	}
}

func TestZRangeCommands(t *testing.T) {
	e := newEnv(t)
	c := e.client(2)
	runSteps(t, e, c, []step{
		reply(int64(6), "zadd", "z", "-1", "neg", "1", "a", "1", "b", "2", "c", "3", "d", "+inf", "top"),
		reply(int64(5), "zadd", "lex", "0", "a", "0", "b", "0", "c", "0", "d", "0", "e"),
		reply([]any{"neg", "a", "b", "c", "d", "top"}, "zrange", "z", "0", "-1"),
		reply([]any{"a", "1", "b", "1"}, "zrange", "z", "1", "2", "withscores"),
		reply([]any{"top", "d"}, "zrange", "z", "0", "1", "rev"),
		reply([]any{"a", "b", "c"}, "zrange", "z", "1", "(3", "byscore"),
		reply([]any{"c", "b", "a"}, "zrange", "z", "(3", "1", "byscore", "rev"),
		reply([]any{"b", "c"}, "zrange", "z", "-inf", "+inf", "byscore", "limit", "2", "2"),
		reply([]any{"b", "c"}, "zrange", "lex", "[b", "(d", "bylex"),
		reply([]any{"c", "b"}, "zrange", "lex", "[c", "(a", "bylex", "rev"),
		reply([]any{}, "zrange", "nokey", "0", "-1"),
		reply([]any{"a", "b", "c"}, "zrangebyscore", "z", "(0", "2"),
		reply([]any{"d", "3", "top", "inf"}, "zrangebyscore", "z", "3", "inf", "withscores", "limit", "0", "-1"),
		reply([]any{"d", "c"}, "zrevrangebyscore", "z", "3", "(1"),
		fails("ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX", "zrange", "z", "0", "1", "limit", "0", "1"),
		fails("ERR syntax error, WITHSCORES not supported in combination with BYLEX", "zrange", "lex", "-", "+", "bylex", "withscores"),
		fails("ERR min or max is not a float", "zrange", "z", "x", "1", "byscore"),
		fails("ERR min or max not valid string range item", "zrange", "lex", "a", "+", "bylex"),
		fails("ERR syntax error", "zrangebyscore", "z", "0", "1", "rev"),
		fails("ERR value is not an integer or out of range", "zrange", "z", "x", "1"),
		reply(int64(3), "zcount", "z", "1", "2"),
		reply(int64(1), "zcount", "z", "(1", "2"),
		fails("ERR min or max is not a float", "zcount", "z", "x", "2"),
		reply(int64(2), "zrank", "z", "b"),
		reply(int64(3), "zrevrank", "z", "b"),
		reply(nil, "zrank", "z", "zz"),
		reply([]any{int64(2), "1"}, "zrank", "z", "b", "withscore"),
		fails("ERR syntax error", "zrank", "z", "b", "x"),
		reply(int64(2), "zrangestore", "dst", "z", "0", "1"),
		reply([]any{"neg", "-1", "a", "1"}, "zrange", "dst", "0", "-1", "withscores"),
		reply(int64(0), "zrangestore", "dst", "z", "10", "20"),
		reply(int64(0), "exists", "dst"),
		fails("ERR syntax error", "zrangestore", "dst", "z", "0", "1", "withscores"),
		reply([]any{"0", []any{"a", "1", "b", "1"}}, "zscan", "z", "0", "match", "[ab]"),
	})
	c3 := e.client(3)
	v, err := c3.Do(t.Context(), "zrange", "z", "0", "1", "withscores").Result()
	if err != nil || !reflect.DeepEqual(v, []any{[]any{"neg", -1.0}, []any{"a", 1.0}}) {
		t.Fatalf("RESP3 ZRANGE WITHSCORES %#v %v", v, err)
	}
}

func TestZPopAndRemRange(t *testing.T) {
	e := newEnv(t)
	c := e.client(2)
	runSteps(t, e, c, []step{
		reply(int64(5), "zadd", "z", "1", "a", "2", "b", "3", "c", "4", "d", "5", "e"),
		reply([]any{"a", "1"}, "zpopmin", "z"),
		reply([]any{"e", "5", "d", "4"}, "zpopmax", "z", "2"),
		reply([]any{}, "zpopmin", "z", "0"),
		reply([]any{}, "zpopmin", "nokey"),
		fails("ERR value is out of range, must be positive", "zpopmin", "z", "-1"),
		fails("ERR syntax error", "zpopmin", "z", "1", "2"),
		reply(int64(1), "zremrangebyrank", "z", "0", "0"),
		reply(int64(0), "zremrangebyrank", "z", "5", "9"),
		reply(int64(0), "zremrangebyscore", "z", "(3", "10"),
		fails("ERR min or max is not a float", "zremrangebyscore", "z", "a", "b"),
		reply(int64(1), "zremrangebyscore", "z", "-inf", "+inf"),
		reply(int64(0), "exists", "z"),
	})
	c3 := e.client(3)
	runSteps(t, e, c3, []step{reply(int64(2), "zadd", "p", "1", "a", "2", "b")})
	v, err := c3.Do(t.Context(), "zpopmin", "p", "1").Result()
	if err != nil || !reflect.DeepEqual(v, []any{[]any{"a", 1.0}}) {
		t.Fatalf("RESP3 ZPOPMIN with count %#v %v", v, err)
	}
}

func TestZSetOps(t *testing.T) {
	e := newEnv(t)
	c := e.client(2)
	runSteps(t, e, c, []step{
		reply(int64(3), "zadd", "z1", "1", "a", "2", "b", "3", "c"),
		reply(int64(3), "zadd", "z2", "10", "b", "20", "c", "30", "d"),
		reply(int64(2), "sadd", "s", "c", "x"),
		reply([]any{"a", "1", "x", "3", "b", "22", "c", "46", "d", "60"}, "zunion", "3", "z1", "z2", "s", "weights", "1", "2", "3", "withscores"),
		reply([]any{"b", "c"}, "zinter", "2", "z1", "z2"),
		reply([]any{"b", "10", "c", "20"}, "zinter", "2", "z1", "z2", "aggregate", "max", "withscores"),
		reply([]any{"b", "2", "c", "3"}, "zinter", "2", "z1", "z2", "aggregate", "min", "withscores"),
		reply([]any{"a"}, "zdiff", "2", "z1", "z2"),
		reply([]any{}, "zinter", "2", "z1", "nokey"),
		reply(int64(4), "zunionstore", "dst", "2", "z1", "z2"),
		reply([]any{"a", "1", "b", "12", "c", "23", "d", "30"}, "zrange", "dst", "0", "-1", "withscores"),
		reply(int64(1), "zinterstore", "dst", "2", "z1", "s"),
		reply(int64(1), "zdiffstore", "dst", "2", "z1", "z2"),
		reply(int64(0), "zinterstore", "dst", "2", "z1", "nokey"),
		reply(int64(0), "exists", "dst"),
		fails("ERR at least 1 input key is needed for 'zunion' command", "zunion", "0", "z1"),
		fails("ERR at least 1 input key is needed for 'zunionstore' command", "zunionstore", "dst", "0", "z1"),
		fails("ERR syntax error", "zunion", "3", "z1", "z2"),
		fails("ERR value is not an integer or out of range", "zunion", "x", "z1"),
		fails("ERR weight value is not a float", "zunion", "2", "z1", "z2", "weights", "1", "x"),
		fails("ERR syntax error", "zunion", "2", "z1", "z2", "aggregate", "avg"),
		fails("ERR syntax error", "zdiff", "2", "z1", "z2", "weights", "1", "2"),
		fails("ERR syntax error", "zunionstore", "dst", "1", "z1", "withscores"),
		ok("set", "str", "v"),
		fails(wrongType, "zunion", "2", "z1", "str"),
		fails(wrongType, "zunion", "2", "z1", "str", "aggregate", "avg"),
	})
}

// TestZSetTTLAndEvents checks that ZADD keeps the TTL, *STORE clears it,
// and the events.
func TestZSetTTLAndEvents(t *testing.T) {
	e := newEnv(t)
	c := e.client(2)
	runSteps(t, e, c, []step{ok("config", "set", "notify-keyspace-events", "KEA")})
	_, next := keyevents(t, e)
	runSteps(t, e, c, []step{
		reply(int64(1), "zadd", "z", "1", "a"),
		reply(int64(1), "expire", "z", "100"),
		reply(int64(1), "zadd", "z", "2", "b"),
		reply("3", "zincrby", "z", "2", "a"),
		reply(int64(100), "ttl", "z"),
		reply(int64(0), "zadd", "z", "3", "a"),
		reply(int64(2), "zunionstore", "u", "1", "z"),
		reply(int64(1), "expire", "u", "100"),
		reply(int64(2), "zrangestore", "u", "z", "0", "-1"),
		reply(int64(-1), "ttl", "u"),
		reply(int64(1), "zrem", "z", "a"),
		reply([]any{"b", "2"}, "zpopmin", "z"),
	})
	want := []string{"zadd z", "expire z", "zadd z", "zincr z", "zunionstore u", "expire u", "zrangestore u",
		"zrem z", "zpopmin z", "del z"}
	if got := next(len(want)); !reflect.DeepEqual(got, want) {
		t.Fatalf("events %v, want %v", got, want)
	}
}
