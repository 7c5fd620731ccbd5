package resp_test

import (
	"reflect"
	"testing"
)

func TestSortCommands(t *testing.T) {
	e := newEnv(t)
	c := e.client(2)
	runSteps(t, e, c, []step{
		reply(int64(4), "rpush", "l", "3", "1", "10", "2"),
		reply(int64(3), "sadd", "s", "b", "c", "a"),
		reply(int64(3), "zadd", "z", "3", "x", "1", "y", "2", "w"),
		ok("mset", "w_1", "40", "w_2", "30", "w_3", "20", "w_10", "10", "o_1", "one", "o_3", "three"),
		reply(int64(1), "hset", "h_2", "name", "two"),
		reply([]any{"1", "2", "3", "10"}, "sort", "l"),
		reply([]any{"10", "3", "2", "1"}, "sort", "l", "desc"),
		reply([]any{"1", "10", "2", "3"}, "sort", "l", "alpha"),
		reply([]any{"2", "3"}, "sort", "l", "limit", "1", "2"),
		reply([]any{"10", "3", "2", "1"}, "sort", "l", "by", "w_*"),
		reply([]any{"3", "1", "10", "2"}, "sort", "l", "by", "nosort"),
		reply([]any{"y", "w", "x"}, "sort", "z", "by", "nosort"),
		reply([]any{"x", "w"}, "sort", "z", "by", "nosort", "desc", "limit", "0", "2"),
		reply([]any{"1", "one", nil, "2", nil, "two"}, "sort", "l", "limit", "0", "2", "get", "#", "get", "o_*", "get", "h_*->name"),
		reply([]any{"a", "b", "c"}, "sort", "s", "alpha"),
		reply([]any{}, "sort", "nokey"),
		reply([]any{"1", "2", "3", "10"}, "sort_ro", "l"),
		fails("ERR One or more scores can't be converted into double", "sort", "s"),
		fails("ERR syntax error", "sort", "l", "limit", "1"),
		fails("ERR value is not an integer or out of range", "sort", "l", "limit", "a", "1"),
		fails("ERR syntax error", "sort_ro", "l", "store", "dst"),
		fails("ERR syntax error", "sort", "l", "bogus"),
		fails(wrongType, "sort", "w_1"),
		// STORE: a list, replacing the destination and its TTL; a set sorted
		// BY a constant is sorted alphabetically when stored.
		reply(int64(1), "rpush", "dst", "old"),
		reply(int64(1), "expire", "dst", "100"),
		reply(int64(3), "sort", "s", "by", "nosort", "store", "dst"),
		reply([]any{"a", "b", "c"}, "lrange", "dst", "0", "-1"),
		reply(int64(-1), "ttl", "dst"),
		reply(int64(4), "sort", "l", "get", "o_*", "store", "dst"),
		reply([]any{"one", "", "three", ""}, "lrange", "dst", "0", "-1"),
		reply(int64(0), "sort", "nokey", "store", "dst"),
		reply(int64(0), "exists", "dst"),
	})
}

func TestSortStoreServesBlockedAndEvents(t *testing.T) {
	e := newEnv(t)
	c := e.client(2)
	runSteps(t, e, c, []step{ok("config", "set", "notify-keyspace-events", "KEA")})
	_, next := keyevents(t, e)
	ch := goBLPop(t, e.client(2), 0, "sorted")
	blockedClients(t, c, "blpop", 1)
	runSteps(t, e, c, []step{
		reply(int64(2), "rpush", "l", "2", "1"),
		reply(int64(2), "sort", "l", "store", "sorted"),
	})
	if r := recv(t, ch); !reflect.DeepEqual(r.val, []string{"sorted", "1"}) {
		t.Fatalf("BLPOP after SORT STORE %v %v", r.val, r.err)
	}
	want := []string{"rpush l", "sortstore sorted", "lpop sorted"}
	if got := next(len(want)); !reflect.DeepEqual(got, want) {
		t.Fatalf("events %v, want %v", got, want)
	}
}
