package resp_test

import (
	"reflect"
	"sort"
	"testing"
)

func TestSetCommands(t *testing.T) {
	e := newEnv(t)
	c := e.client(2)
	runSteps(t, e, c, []step{
		reply(int64(3), "sadd", "a", "1", "2", "3"),
		reply(int64(1), "sadd", "a", "3", "4"),
		reply(int64(3), "sadd", "b", "3", "4", "5"),
		reply([]any{"1", "2", "3", "4"}, "smembers", "a"),
		reply([]any{}, "smembers", "nokey"),
		reply(int64(1), "sismember", "a", "1"),
		reply(int64(0), "sismember", "a", "9"),
		reply(int64(0), "sismember", "nokey", "9"),
		reply([]any{int64(1), int64(0)}, "smismember", "a", "1", "9"),
		reply([]any{int64(0)}, "smismember", "nokey", "1"),
		reply(int64(4), "scard", "a"),
		reply([]any{"3", "4"}, "sinter", "a", "b"),
		reply([]any{}, "sinter", "a", "nokey"),
		reply([]any{"1", "2", "3", "4", "5"}, "sunion", "a", "b", "nokey"),
		reply([]any{"1", "2"}, "sdiff", "a", "b"),
		reply([]any{}, "sdiff", "nokey", "a"),
		reply(int64(2), "sintercard", "2", "a", "b"),
		reply(int64(1), "sintercard", "2", "a", "b", "limit", "1"),
		reply(int64(0), "sintercard", "2", "a", "nokey"),
		fails("ERR numkeys should be greater than 0", "sintercard", "0", "a"),
		fails("ERR numkeys should be greater than 0", "sintercard", "x", "a"),
		fails("ERR Number of keys can't be greater than number of args", "sintercard", "3", "a", "b"),
		fails("ERR LIMIT can't be negative", "sintercard", "2", "a", "b", "limit", "-1"),
		fails("ERR syntax error", "sintercard", "1", "a", "b"),
		reply(int64(2), "sinterstore", "dst", "a", "b"),
		reply([]any{"3", "4"}, "smembers", "dst"),
		reply(int64(5), "sunionstore", "dst", "a", "b"),
		reply(int64(2), "sdiffstore", "dst", "a", "b"),
		reply([]any{"1", "2"}, "smembers", "dst"),
		reply(int64(0), "sinterstore", "dst", "a", "nokey"),
		reply(int64(0), "exists", "dst"),
		reply(int64(1), "smove", "a", "c", "1"),
		reply(int64(0), "smove", "a", "c", "9"),
		reply(int64(0), "smove", "nokey", "c", "1"),
		reply(int64(1), "smove", "a", "a", "2"),
		reply([]any{"1"}, "smembers", "c"),
		reply(int64(2), "srem", "a", "2", "3", "9"),
		reply(int64(0), "srem", "nokey", "1"),
		reply(int64(1), "srem", "a", "4"),
		reply(int64(0), "exists", "a"),
		ok("set", "str", "v"),
		fails(wrongType, "sadd", "str", "1"),
		fails(wrongType, "smembers", "str"),
		fails(wrongType, "sinter", "nokey", "str"),
		fails(wrongType, "sunionstore", "dst", "b", "str"),
		fails(wrongType, "smove", "b", "str", "3"),
		reply(int64(0), "smove", "nokey", "str", "3"),
	})
}

func TestSetRandomPopAndScan(t *testing.T) {
	e := newEnv(t)
	c := e.client(2)
	runSteps(t, e, c, []step{
		reply(int64(3), "sadd", "s", "a", "b", "c"),
		reply(nil, "spop", "nokey"),
		reply([]any{}, "spop", "nokey", "2"),
		reply([]any{}, "spop", "s", "0"),
		fails("ERR value is out of range, must be positive", "spop", "s", "-1"),
		fails("ERR syntax error", "spop", "s", "1", "2"),
		reply(nil, "srandmember", "nokey"),
		reply([]any{}, "srandmember", "nokey", "3"),
		reply([]any{}, "srandmember", "s", "0"),
		fails("ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807", "srandmember", "s", "-9223372036854775808"),
		fails("ERR invalid cursor", "sscan", "s", "-1"),
		reply([]any{"0", []any{"a", "b", "c"}}, "sscan", "s", "0"),
		reply([]any{"0", []any{"b"}}, "sscan", "s", "0", "match", "b", "count", "100"),
	})
	all, err := c.SRandMemberN(t.Context(), "s", 10).Result()
	sort.Strings(all)
	if err != nil || !reflect.DeepEqual(all, []string{"a", "b", "c"}) {
		t.Fatalf("SRANDMEMBER 10 = %v %v", all, err)
	}
	dups, err := c.SRandMemberN(t.Context(), "s", -7).Result()
	if err != nil || len(dups) != 7 {
		t.Fatalf("SRANDMEMBER -7 = %v %v", dups, err)
	}
	popped, err := c.SPopN(t.Context(), "s", 2).Result()
	if err != nil || len(popped) != 2 {
		t.Fatalf("SPOP 2 = %v %v", popped, err)
	}
	last, err := c.SPop(t.Context(), "s").Result()
	if err != nil || last == "" {
		t.Fatalf("SPOP = %q %v", last, err)
	}
	runSteps(t, e, c, []step{reply(int64(0), "exists", "s")})
	// RESP3 replies with sets.
	c3 := e.client(3)
	runSteps(t, e, c3, []step{reply(int64(2), "sadd", "t", "x", "y")})
	v, err := c3.Do(t.Context(), "smembers", "t").Result()
	if err != nil || !reflect.DeepEqual(v, []any{"x", "y"}) {
		t.Fatalf("RESP3 SMEMBERS %#v %v", v, err)
	}
}

// TestSetTTLRules checks Redis's TTL rules for sets: SADD keeps the TTL,
// *STORE clears it.
func TestSetTTLRules(t *testing.T) {
	e := newEnv(t)
	c := e.client(2)
	runSteps(t, e, c, []step{
		reply(int64(1), "sadd", "a", "1"),
		reply(int64(1), "sadd", "dst", "x"),
		reply(int64(1), "expire", "a", "100"),
		reply(int64(1), "expire", "dst", "100"),
		reply(int64(1), "sadd", "a", "2"),
		reply(int64(100), "ttl", "a"),
		reply(int64(2), "sunionstore", "dst", "a"),
		reply(int64(-1), "ttl", "dst"),
	})
}

func TestSetEvents(t *testing.T) {
	e := newEnv(t)
	c := e.client(2)
	runSteps(t, e, c, []step{ok("config", "set", "notify-keyspace-events", "KEA")})
	_, next := keyevents(t, e)
	runSteps(t, e, c, []step{
		reply(int64(2), "sadd", "a", "1", "2"),
		reply(int64(0), "sadd", "a", "1"),
		reply(int64(1), "smove", "a", "b", "1"),
		reply(int64(2), "sunionstore", "u", "a", "b"),
		reply(int64(0), "sinterstore", "u", "a", "b"),
		reply("2", "spop", "a"),
		reply(int64(1), "srem", "b", "1"),
	})
	want := []string{"sadd a", "srem a", "sadd b", "sunionstore u", "del u", "spop a", "del a", "srem b", "del b"}
	if got := next(len(want)); !reflect.DeepEqual(got, want) {
		t.Fatalf("events %v, want %v", got, want)
	}
}
