package resp_test

import (
	"reflect"
	"slices"
	"testing"
)

func TestZRandMember(t *testing.T) {
	e := newEnv(t)
	c := e.client(2)
	runSteps(t, e, c, []step{
		reply(int64(3), "zadd", "z", "3", "a", "1", "b", "2", "c"),
		reply(int64(1), "zadd", "one", "7", "only"),
		ok("set", "str", "v"),
		// A count reaching the size replies with the whole set, highest
		// score first, as Redis 7 does.
		reply([]any{"a", "c", "b"}, "zrandmember", "z", "10"),
		reply([]any{"a", "3", "c", "2", "b", "1"}, "zrandmember", "z", "3", "WITHSCORES"),
		reply([]any{}, "zrandmember", "z", "0"),
		reply([]any{}, "zrandmember", "z", "0", "withscores"),
		reply("only", "zrandmember", "one"),
		reply([]any{"only", "only", "only"}, "zrandmember", "one", "-3"),
		reply([]any{"only", "7", "only", "7"}, "zrandmember", "one", "-2", "withscores"),
		reply(nil, "zrandmember", "nokey"),
		reply([]any{}, "zrandmember", "nokey", "5"),
		reply([]any{}, "zrandmember", "nokey", "-5", "withscores"),
		reply([]any{}, "zrandmember", "nokey", "-9223372036854775807"),
		fails("ERR value is not an integer or out of range", "zrandmember", "z", "x"),
		fails("ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807", "zrandmember", "z", "-9223372036854775808"),
		fails("ERR value is out of range", "zrandmember", "z", "4611686018427387904", "withscores"),
		fails("ERR value is out of range", "zrandmember", "nokey", "-4611686018427387904", "withscores"),
		fails("ERR syntax error", "zrandmember", "z", "1", "foo"),
		fails("ERR syntax error", "zrandmember", "z", "1", "withscores", "foo"),
		fails(wrongType, "zrandmember", "str"),
		fails(wrongType, "zrandmember", "str", "0"),
		fails("ERR value is not an integer or out of range", "zrandmember", "str", "x"),
	})
	scores := map[string]string{"a": "3", "b": "1", "c": "2"}
	for _, n := range []int{2, -5} {
		v, err := c.Do(t.Context(), "zrandmember", "z", n, "withscores").Slice()
		want := n
		if want < 0 {
			want = -want
		}
		if err != nil || len(v) != 2*want {
			t.Fatalf("ZRANDMEMBER z %d WITHSCORES = %v %v", n, v, err)
		}
		var members []string
		for i := 0; i < len(v); i += 2 {
			m := v[i].(string)
			if scores[m] != v[i+1] {
				t.Fatalf("ZRANDMEMBER z %d WITHSCORES = %v", n, v)
			}
			members = append(members, m)
		}
		if n > 0 && len(slices.Compact(slices.Sorted(slices.Values(members)))) != n {
			t.Fatalf("ZRANDMEMBER z %d repeated a member: %v", n, v)
		}
	}
	c3 := e.client(3)
	v, err := c3.Do(t.Context(), "zrandmember", "z", "5", "withscores").Result()
	if err != nil || !reflect.DeepEqual(v, []any{[]any{"a", 3.0}, []any{"c", 2.0}, []any{"b", 1.0}}) {
		t.Fatalf("RESP3 ZRANDMEMBER WITHSCORES %#v %v", v, err)
	}
}
