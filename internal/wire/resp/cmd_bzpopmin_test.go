package resp_test

import (
	"errors"
	"reflect"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/mayfly/mayfly/internal/wire/resp"
)

type doResult struct {
	v   any
	err error
}

// goDo runs a command (one that blocks) on c in a goroutine.
func goDo(t *testing.T, c *redis.Client, args ...any) <-chan doResult {
	ch := make(chan doResult, 1)
	go func() {
		v, err := c.Do(t.Context(), args...).Result()
		ch <- doResult{v, err}
	}()
	return ch
}

// expectServed checks that a blocked command returned want.
func expectServed(t *testing.T, ch <-chan doResult, want any) {
	t.Helper()
	if r := recv(t, ch); r.err != nil || !reflect.DeepEqual(r.v, want) {
		t.Fatalf("blocked command got %#v %v, want %#v", r.v, r.err, want)
	}
}

func TestBlockingZPopNow(t *testing.T) {
	e := newEnv(t)
	c := e.client(2)
	runSteps(t, e, c, []step{
		reply(int64(3), "zadd", "z", "1", "a", "2", "b", "3", "c"),
		ok("set", "str", "v"),
		reply([]any{"z", "a", "1"}, "bzpopmin", "nokey", "z", "0"),
		reply([]any{"z", "c", "3"}, "bzpopmax", "z", "str", "0"),
		reply([]any{"z", []any{[]any{"b", "2"}}}, "bzmpop", "0", "2", "nokey", "z", "max", "count", "5"),
		reply(int64(0), "exists", "z"),
		fails(wrongType, "bzpopmin", "nokey", "str", "0"),
		fails(wrongType, "bzmpop", "0", "1", "str", "min"),
		fails("ERR timeout is negative", "bzpopmin", "z", "-1"),
		fails("ERR timeout is not a float or out of range", "bzpopmax", "z", "x"),
		fails("ERR timeout is not a float or out of range", "bzpopmin", "z", "nan"),
		fails("ERR wrong number of arguments for 'bzpopmin' command", "bzpopmin", "z"),
		// BZMPOP reads numkeys, the end and COUNT before the timeout.
		fails("ERR numkeys should be greater than 0", "bzmpop", "x", "0", "z", "min"),
		fails("ERR syntax error", "bzmpop", "-1", "1", "z", "mid"),
		fails("ERR count should be greater than 0", "bzmpop", "-1", "1", "z", "min", "count", "0"),
		fails("ERR timeout is negative", "bzmpop", "-1", "1", "z", "min"),
		fails("ERR timeout is not a float or out of range", "bzmpop", "x", "1", "z", "min"),
		fails("ERR wrong number of arguments for 'bzmpop' command", "bzmpop", "0", "1", "z"),
		// Inside MULTI they do not block: a null array at once.
		ok("multi"),
		reply("QUEUED", "bzpopmin", "nokey", "0"),
		reply("QUEUED", "bzmpop", "0", "1", "nokey", "min"),
		reply([]any{nil, nil}, "exec"),
	})
	// The timeout's null array, RESP2 and RESP3.
	if got := rawUntil(t, e, "bzpopmin nokey 0.01\r\nbzmpop 0.01 1 nokey max\r\n", "*-1\r\n*-1\r\n"); got != "*-1\r\n*-1\r\n" {
		t.Fatalf("RESP2 timeouts %q", got)
	}
	if got := rawUntil(t, e, "hello 3\r\nbzpopmax nokey 0.01\r\nbzmpop 0.01 1 nokey min\r\n", "_\r\n_\r\n"); len(got) < 20 {
		t.Fatalf("RESP3 timeouts %q", got)
	}
	c3 := e.client(3)
	runSteps(t, e, c3, []step{reply(int64(1), "zadd", "p", "2.5", "a")})
	if v, err := c3.Do(t.Context(), "bzpopmin", "p", "0").Result(); err != nil || !reflect.DeepEqual(v, []any{"p", "a", 2.5}) {
		t.Fatalf("RESP3 BZPOPMIN %#v %v", v, err)
	}
	if _, err := c3.Do(t.Context(), "bzpopmin", "p", "0.01").Result(); !errors.Is(err, redis.Nil) {
		t.Fatalf("RESP3 BZPOPMIN timeout: %v", err)
	}
}

// TestBlockingZPopServed checks the clients blocked on sorted sets: served
// first come, first served by ZADD, ZINCRBY and the *STORE commands, with
// the events of the pop after those of the write; a client blocked on the
// same key for a list stays blocked until a list is pushed there.
func TestBlockingZPopServed(t *testing.T) {
	e := newEnv(t)
	c := e.client(2)
	runSteps(t, e, c, []step{ok("config", "set", "notify-keyspace-events", "KEA")})
	_, next := keyevents(t, e)

	first := goDo(t, e.client(2), "bzpopmax", "q", "0")
	blockedClients(t, c, "bzpopmax", 1)
	second := goDo(t, e.client(2), "bzmpop", "0", "2", "other", "q", "min", "count", "2")
	blockedClients(t, c, "bzmpop", 1)
	runSteps(t, e, c, []step{reply(int64(4), "zadd", "q", "1", "a", "2", "b", "3", "c", "4", "d")})
	expectServed(t, first, []any{"q", "d", "4"})
	expectServed(t, second, []any{"q", []any{[]any{"a", "1"}, []any{"b", "2"}}})
	runSteps(t, e, c, []step{reply([]any{"c"}, "zrange", "q", "0", "-1")})
	if got, want := next(3), []string{"zadd q", "zpopmax q", "zpopmin q"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("events %v, want %v", got, want)
	}

	// A list waiter and a sorted set waiter on one key: each is served by
	// its own type only.
	list := goDo(t, e.client(2), "blpop", "m", "0")
	blockedClients(t, c, "blpop", 1)
	zset := goDo(t, e.client(2), "bzpopmin", "m", "0")
	blockedClients(t, c, "bzpopmin", 1)
	runSteps(t, e, c, []step{reply("2", "zincrby", "m", "2", "x")})
	expectServed(t, zset, []any{"m", "x", "2"})
	runSteps(t, e, c, []step{reply(int64(1), "rpush", "m", "e")})
	expectServed(t, list, []any{"m", "e"})
	if got, want := next(6), []string{"zincr m", "zpopmin m", "del m", "rpush m", "lpop m", "del m"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("events %v, want %v", got, want)
	}

	// The *STORE commands serve their destination. (CLIENT LIST shows
	// the last command of the clients served above, hence the counts.)
	runSteps(t, e, c, []step{reply(int64(2), "zadd", "src", "1", "a", "2", "b")})
	union := goDo(t, e.client(2), "bzpopmin", "u", "0")
	blockedClients(t, c, "bzpopmin", 2)
	runSteps(t, e, c, []step{reply(int64(2), "zunionstore", "u", "1", "src")})
	expectServed(t, union, []any{"u", "a", "1"})
	rng := goDo(t, e.client(2), "bzpopmax", "r", "0")
	blockedClients(t, c, "bzpopmax", 2)
	runSteps(t, e, c, []step{reply(int64(1), "zrangestore", "r", "src", "1", "1")})
	expectServed(t, rng, []any{"r", "b", "2"})
	runSteps(t, e, c, []step{reply(int64(0), "exists", "r")})
}

// TestBlockingZPopTimeout checks that the timeout runs on the server clock.
func TestBlockingZPopTimeout(t *testing.T) {
	var fake atomic.Pointer[clock]
	e := newEnv(t, func(o *resp.Options) {
		o.Now = func() time.Time {
			if c := fake.Load(); c != nil {
				return c.Now()
			}
			return time.Now()
		}
	})
	fake.Store(e.clock)
	c := e.client(2)
	zpop := goDo(t, e.client(2), "bzmpop", "5", "1", "q", "min")
	blockedClients(t, c, "bzmpop", 1)
	lpop := goDo(t, e.client(3), "blmpop", "5", "1", "q", "left")
	blockedClients(t, c, "blmpop", 1)
	e.clock.Advance(6 * time.Second)
	for _, ch := range []<-chan doResult{zpop, lpop} {
		if r := recv(t, ch); !errors.Is(r.err, redis.Nil) {
			t.Fatalf("after the server clock passed the timeout: %#v %v", r.v, r.err)
		}
	}
}
