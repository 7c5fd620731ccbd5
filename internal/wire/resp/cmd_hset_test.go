package resp_test

import (
	"reflect"
	"sort"
	"testing"
)

func TestHashCommands(t *testing.T) {
	e := newEnv(t)
	c := e.client(2)
	runSteps(t, e, c, []step{
		reply(int64(2), "hset", "h", "a", "1", "b", "2"),
		reply(int64(0), "hset", "h", "a", "10"),
		fails("ERR wrong number of arguments for 'hset' command", "hset", "h", "a", "1", "b"),
		fails("ERR wrong number of arguments for 'hmset' command", "hmset", "h", "a"),
		ok("hmset", "h", "c", "3"),
		reply(int64(0), "hsetnx", "h", "a", "x"),
		reply(int64(1), "hsetnx", "h", "d", "4"),
		reply("10", "hget", "h", "a"),
		reply(nil, "hget", "h", "zz"),
		reply(nil, "hget", "nokey", "a"),
		reply([]any{"10", nil, "3"}, "hmget", "h", "a", "zz", "c"),
		reply([]any{nil, nil}, "hmget", "nokey", "a", "b"),
		reply(int64(4), "hlen", "h"),
		reply(int64(1), "hexists", "h", "a"),
		reply(int64(0), "hexists", "h", "zz"),
		reply(int64(2), "hstrlen", "h", "a"),
		reply(int64(0), "hstrlen", "h", "zz"),
		reply([]any{"a", "b", "c", "d"}, "hkeys", "h"),
		reply([]any{"10", "2", "3", "4"}, "hvals", "h"),
		reply([]any{"a", "10", "b", "2", "c", "3", "d", "4"}, "hgetall", "h"),
		reply([]any{}, "hgetall", "nokey"),
		reply(int64(15), "hincrby", "h", "a", "5"),
		reply(int64(-1), "hincrby", "h", "new", "-1"),
		fails("ERR value is not an integer or out of range", "hincrby", "h", "a", "x"),
		ok("hmset", "h", "txt", "abc"),
		fails("ERR hash value is not an integer", "hincrby", "h", "txt", "1"),
		fails("ERR increment or decrement would overflow", "hincrby", "h", "a", "9223372036854775807"),
		reply("10.5", "hincrbyfloat", "h", "f", "10.5"),
		reply("10.6", "hincrbyfloat", "h", "f", "0.1"),
		fails("ERR hash value is not a float", "hincrbyfloat", "h", "txt", "1"),
		fails("ERR value is not a valid float", "hincrbyfloat", "h", "f", "x"),
		fails("ERR value is NaN or Infinity", "hincrbyfloat", "h", "f", "inf"),
		reply(int64(2), "hdel", "h", "a", "zz", "b"),
		reply(int64(0), "hdel", "nokey", "a"),
		ok("set", "str", "v"),
		fails("WRONGTYPE Operation against a key holding the wrong kind of value", "hset", "str", "a", "1"),
		fails("WRONGTYPE Operation against a key holding the wrong kind of value", "hget", "str", "a"),
		fails("WRONGTYPE Operation against a key holding the wrong kind of value", "hgetall", "str"),
		fails("WRONGTYPE Operation against a key holding the wrong kind of value", "hincrbyfloat", "str", "a", "1"),
	})
}

func TestHashRandFieldAndScan(t *testing.T) {
	e := newEnv(t)
	c := e.client(2)
	runSteps(t, e, c, []step{
		reply(int64(3), "hset", "h", "a", "1", "b", "2", "c", "3"),
		reply([]any{}, "hrandfield", "h", "0"),
		reply([]any{}, "hrandfield", "nokey", "3"),
		reply(nil, "hrandfield", "nokey"),
		fails("ERR syntax error", "hrandfield", "h", "1", "values"),
		fails("ERR syntax error", "hrandfield", "h", "1", "withvalues", "x"),
		fails("ERR value is not an integer or out of range", "hrandfield", "h", "x"),
		fails("ERR value is out of range", "hrandfield", "h", "-9223372036854775807", "withvalues"),
		fails("ERR invalid cursor", "hscan", "h", "x"),
		fails("ERR syntax error", "hscan", "h", "0", "count", "0"),
		fails("ERR syntax error", "hscan", "h", "0", "type", "hash"),
		reply([]any{"0", []any{}}, "hscan", "nokey", "0"),
		reply([]any{"0", []any{"b", "2"}}, "hscan", "h", "0", "match", "b*"),
		reply([]any{"0", []any{"a", "b", "c"}}, "hscan", "h", "0", "novalues"),
	})
	all, err := c.Do(t.Context(), "hrandfield", "h", "5", "withvalues").Slice()
	if err != nil || len(all) != 6 {
		t.Fatalf("HRANDFIELD 5 WITHVALUES = %v %v", all, err)
	}
	got := map[any]any{}
	for i := 0; i < len(all); i += 2 {
		got[all[i]] = all[i+1]
	}
	if !reflect.DeepEqual(got, map[any]any{"a": "1", "b": "2", "c": "3"}) {
		t.Fatalf("HRANDFIELD pairs %v", got)
	}
	many, err := c.Do(t.Context(), "hrandfield", "h", "-10").StringSlice()
	if err != nil || len(many) != 10 {
		t.Fatalf("HRANDFIELD -10 = %v %v", many, err)
	}
	// RESP3: HGETALL is a map, HRANDFIELD WITHVALUES a list of pairs.
	c3 := e.client(3)
	m, err := c3.Do(t.Context(), "hgetall", "h").Result()
	if err != nil || !reflect.DeepEqual(m, map[any]any{"a": "1", "b": "2", "c": "3"}) {
		t.Fatalf("RESP3 HGETALL %#v %v", m, err)
	}
	pairs, err := c3.Do(t.Context(), "hrandfield", "h", "2", "withvalues").Slice()
	if err != nil || len(pairs) != 2 {
		t.Fatalf("RESP3 HRANDFIELD %#v %v", pairs, err)
	}
	for _, p := range pairs {
		if pp, ok := p.([]any); !ok || len(pp) != 2 {
			t.Fatalf("RESP3 HRANDFIELD pair %#v", p)
		}
	}
	// HSCAN pages through a larger hash.
	args := []any{"hset", "big"}
	for i := range 500 {
		args = append(args, "f"+string(rune('a'+i%26))+string(rune('a'+i/26)), i)
	}
	if err := c.Do(t.Context(), args...).Err(); err != nil {
		t.Fatal(err)
	}
	var fields []string
	cursor := uint64(0)
	for {
		keys, next, err := c.HScan(t.Context(), "big", cursor, "", 70).Result()
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < len(keys); i += 2 {
			fields = append(fields, keys[i])
		}
		if cursor = next; cursor == 0 {
			break
		}
	}
	sort.Strings(fields)
	if len(fields) != 500 {
		t.Fatalf("HSCAN saw %d fields", len(fields))
	}
}

// TestHashTTLRules checks Redis's TTL rule for hashes: HSET keeps the
// key's TTL.
func TestHashTTLRules(t *testing.T) {
	e := newEnv(t)
	c := e.client(2)
	runSteps(t, e, c, []step{
		reply(int64(1), "hset", "h", "a", "1"),
		reply(int64(1), "expire", "h", "100"),
		reply(int64(1), "hset", "h", "b", "2"),
		reply(int64(1), "hincrby", "h", "c", "1"),
		reply(int64(1), "hdel", "h", "a"),
		reply(int64(100), "ttl", "h"),
	})
}

func TestHashEvents(t *testing.T) {
	e := newEnv(t)
	c := e.client(2)
	runSteps(t, e, c, []step{ok("config", "set", "notify-keyspace-events", "KEA")})
	_, next := keyevents(t, e)
	runSteps(t, e, c, []step{
		reply(int64(1), "hset", "h", "a", "1"),
		reply(int64(1), "hsetnx", "h", "b", "1"),
		reply(int64(0), "hsetnx", "h", "b", "1"),
		reply(int64(2), "hincrby", "h", "a", "1"),
		reply("1.5", "hincrbyfloat", "h", "c", "1.5"),
		reply(int64(3), "hdel", "h", "a", "b", "c"),
	})
	want := []string{"hset h", "hset h", "hincrby h", "hincrbyfloat h", "hdel h", "del h"}
	if got := next(len(want)); !reflect.DeepEqual(got, want) {
		t.Fatalf("events %v, want %v", got, want)
	}
}
