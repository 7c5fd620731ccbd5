package resp_test

import (
	"reflect"
	"testing"
)

func TestZLexAndRevRange(t *testing.T) {
	e := newEnv(t)
	c := e.client(2)
	runSteps(t, e, c, []step{ok("config", "set", "notify-keyspace-events", "KEA")})
	_, next := keyevents(t, e)
	runSteps(t, e, c, []step{
		reply(int64(5), "zadd", "lex", "0", "a", "0", "b", "0", "c", "0", "d", "0", "e"),
		reply([]any{"a", "b", "c", "d", "e"}, "zrangebylex", "lex", "-", "+"),
		reply([]any{"b", "c"}, "zrangebylex", "lex", "[b", "(d"),
		reply([]any{"b", "c"}, "zrangebylex", "lex", "-", "+", "LIMIT", "1", "2"),
		reply([]any{"b", "c", "d", "e"}, "zrangebylex", "lex", "-", "+", "limit", "1", "-1"),
		reply([]any{}, "zrangebylex", "lex", "-", "+", "limit", "-1", "2"),
		reply([]any{}, "zrangebylex", "lex", "+", "-"),
		reply([]any{}, "zrangebylex", "lex", "(c", "[c"),
		reply([]any{}, "zrangebylex", "nokey", "-", "+"),
		reply([]any{"e", "d", "c", "b", "a"}, "zrevrangebylex", "lex", "+", "-"),
		reply([]any{"c", "b"}, "zrevrangebylex", "lex", "(d", "[b"),
		reply([]any{"d", "c"}, "zrevrangebylex", "lex", "+", "-", "limit", "1", "2"),
		reply([]any{}, "zrevrangebylex", "lex", "-", "+"),
		reply(int64(5), "zlexcount", "lex", "-", "+"),
		reply(int64(2), "zlexcount", "lex", "(a", "[c"),
		reply(int64(0), "zlexcount", "lex", "[z", "+"),
		reply(int64(0), "zlexcount", "nokey", "-", "+"),
		fails("ERR syntax error", "zrangebylex", "lex", "-", "+", "limit", "1"),
		fails("ERR syntax error", "zrangebylex", "lex", "-", "+", "rev"),
		fails("ERR syntax error", "zrevrangebylex", "lex", "+", "-", "byscore"),
		fails("ERR syntax error, WITHSCORES not supported in combination with BYLEX", "zrangebylex", "lex", "-", "+", "withscores"),
		fails("ERR value is not an integer or out of range", "zrevrangebylex", "lex", "+", "-", "limit", "x", "2"),
		// The range is parsed before the key is looked up.
		fails("ERR min or max not valid string range item", "zrangebylex", "nokey", "a", "+"),
		fails("ERR min or max not valid string range item", "zlexcount", "nokey", "-", "c"),
		fails("ERR min or max not valid string range item", "zremrangebylex", "nokey", "", "+"),
		fails("ERR wrong number of arguments for 'zlexcount' command", "zlexcount", "lex", "-"),
		reply(int64(0), "zremrangebylex", "nokey", "-", "+"),
		reply(int64(2), "zremrangebylex", "lex", "[b", "(d"),
		reply([]any{"a", "d", "e"}, "zrangebylex", "lex", "-", "+"),
		reply(int64(3), "zremrangebylex", "lex", "-", "+"),
		reply(int64(0), "exists", "lex"),
		reply(int64(4), "zadd", "z", "1", "a", "2", "b", "3", "c", "4", "d"),
		reply([]any{"d", "c"}, "zrevrange", "z", "0", "1"),
		reply([]any{"d", "4", "c", "3", "b", "2", "a", "1"}, "zrevrange", "z", "0", "-1", "WITHSCORES"),
		reply([]any{"b", "a"}, "zrevrange", "z", "-2", "-1"),
		reply([]any{}, "zrevrange", "z", "5", "10"),
		reply([]any{}, "zrevrange", "nokey", "0", "-1"),
		fails("ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX", "zrevrange", "z", "0", "1", "limit", "0", "1"),
		fails("ERR syntax error", "zrevrange", "z", "0", "1", "rev"),
		fails("ERR syntax error", "zrevrange", "z", "0", "1", "byscore"),
		fails("ERR value is not an integer or out of range", "zrevrange", "z", "a", "1"),
		ok("set", "str", "v"),
		fails(wrongType, "zrevrange", "str", "0", "1"),
		fails(wrongType, "zrangebylex", "str", "-", "+"),
		fails(wrongType, "zrevrangebylex", "str", "+", "-"),
		fails(wrongType, "zlexcount", "str", "-", "+"),
		fails(wrongType, "zremrangebylex", "str", "-", "+"),
	})
	want := []string{"zadd lex", "zremrangebylex lex", "zremrangebylex lex", "del lex", "zadd z", "set str"}
	if got := next(len(want)); !reflect.DeepEqual(got, want) {
		t.Fatalf("events %v, want %v", got, want)
	}
	c3 := e.client(3)
	v, err := c3.Do(t.Context(), "zrevrange", "z", "0", "1", "withscores").Result()
	if err != nil || !reflect.DeepEqual(v, []any{[]any{"d", 4.0}, []any{"c", 3.0}}) {
		t.Fatalf("RESP3 ZREVRANGE WITHSCORES %#v %v", v, err)
	}
}

func TestZInterCard(t *testing.T) {
	e := newEnv(t)
	c := e.client(2)
	runSteps(t, e, c, []step{
		reply(int64(4), "zadd", "z1", "1", "a", "2", "b", "3", "c", "4", "d"),
		reply(int64(3), "zadd", "z2", "1", "b", "2", "c", "3", "d"),
		reply(int64(3), "sadd", "s", "c", "d", "x"),
		ok("set", "str", "v"),
		reply(int64(4), "zintercard", "1", "z1"),
		reply(int64(3), "zintercard", "2", "z1", "z2"),
		reply(int64(2), "zintercard", "3", "z1", "z2", "s"),
		reply(int64(2), "zintercard", "2", "z1", "z2", "LIMIT", "2"),
		reply(int64(3), "zintercard", "2", "z1", "z2", "limit", "0"),
		reply(int64(0), "zintercard", "2", "z1", "nokey"),
		fails("ERR at least 1 input key is needed for 'zintercard' command", "zintercard", "0", "z1"),
		fails("ERR value is not an integer or out of range", "zintercard", "x", "z1"),
		fails("ERR syntax error", "zintercard", "2", "z1"),
		fails("ERR LIMIT can't be negative", "zintercard", "1", "z1", "limit", "-1"),
		fails("ERR LIMIT can't be negative", "zintercard", "1", "z1", "limit", "x"),
		fails("ERR syntax error", "zintercard", "1", "z1", "limit"),
		fails("ERR syntax error", "zintercard", "1", "z1", "weights", "1"),
		// Every key is type-checked before the options are read.
		fails(wrongType, "zintercard", "2", "nokey", "str"),
		fails(wrongType, "zintercard", "2", "str", "z1", "limit", "-1"),
	})
}
