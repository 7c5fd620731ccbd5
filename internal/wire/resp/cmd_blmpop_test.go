package resp_test

import (
	"reflect"
	"testing"
)

func TestBlockingListMPopAndRPopLPush(t *testing.T) {
	e := newEnv(t)
	c := e.client(2)
	runSteps(t, e, c, []step{ok("config", "set", "notify-keyspace-events", "KEA")})
	_, next := keyevents(t, e)
	runSteps(t, e, c, []step{
		reply(int64(3), "rpush", "l", "a", "b", "c"),
		ok("set", "str", "v"),
		reply([]any{"l", []any{"c", "b"}}, "blmpop", "0", "2", "nokey", "l", "right", "count", "2"),
		reply("a", "brpoplpush", "l", "dst", "0"),
		reply([]any{"a"}, "lrange", "dst", "0", "-1"),
		fails(wrongType, "blmpop", "0", "2", "nokey", "str", "left"),
		fails(wrongType, "brpoplpush", "dst", "str", "0"),
		fails("ERR numkeys should be greater than 0", "blmpop", "x", "0", "l", "left"),
		fails("ERR syntax error", "blmpop", "-1", "1", "l", "up"),
		fails("ERR count should be greater than 0", "blmpop", "-1", "1", "l", "left", "count", "0"),
		fails("ERR timeout is negative", "blmpop", "-1", "1", "l", "left"),
		fails("ERR timeout is not a float or out of range", "brpoplpush", "l", "dst", "x"),
		fails("ERR wrong number of arguments for 'brpoplpush' command", "brpoplpush", "l", "dst"),
		fails("ERR wrong number of arguments for 'blmpop' command", "blmpop", "0", "1", "l"),
	})
	want := []string{"rpush l", "set str", "rpop l", "lpush dst", "rpop l", "del l"}
	if got := next(len(want)); !reflect.DeepEqual(got, want) {
		t.Fatalf("events %v, want %v", got, want)
	}

	// Blocked clients served by pushes, first come first served; the
	// element BRPOPLPUSH moves goes on to the client blocked on its
	// destination.
	mpop := goDo(t, e.client(2), "blmpop", "0", "1", "q", "left", "count", "2")
	blockedClients(t, c, "blmpop", 1)
	move := goDo(t, e.client(2), "brpoplpush", "q", "moved", "0")
	blockedClients(t, c, "brpoplpush", 1)
	onDst := goDo(t, e.client(2), "blmpop", "0", "1", "moved", "right")
	blockedClients(t, c, "blmpop", 2)
	runSteps(t, e, c, []step{reply(int64(3), "rpush", "q", "1", "2", "3")})
	expectServed(t, mpop, []any{"q", []any{"1", "2"}})
	expectServed(t, move, "3")
	expectServed(t, onDst, []any{"moved", []any{"3"}})
	runSteps(t, e, c, []step{reply(int64(0), "exists", "q", "moved")})
	want = []string{"rpush q", "lpop q", "lpush moved", "rpop q", "del q", "rpop moved", "del moved"}
	if got := next(len(want)); !reflect.DeepEqual(got, want) {
		t.Fatalf("events %v, want %v", got, want)
	}

	// Timeouts: a null array (BLMOVE and BRPOPLPUSH too), but a null bulk
	// string for BRPOPLPUSH and BLMOVE inside MULTI, as Redis replies.
	got := rawUntil(t, e, "blmpop 0.01 1 nokey left\r\nbrpoplpush nokey d 0.01\r\nblmove nokey d left left 0.01\r\n", "*-1\r\n*-1\r\n*-1\r\n")
	if got != "*-1\r\n*-1\r\n*-1\r\n" {
		t.Fatalf("RESP2 timeouts %q", got)
	}
	got = rawUntil(t, e, "multi\r\nbrpoplpush nokey d 0\r\nblmpop 0 1 nokey left\r\nblmove nokey d left left 0\r\nexec\r\n", "*3\r\n$-1\r\n*-1\r\n$-1\r\n")
	if want := "+OK\r\n+QUEUED\r\n+QUEUED\r\n+QUEUED\r\n*3\r\n$-1\r\n*-1\r\n$-1\r\n"; got != want {
		t.Fatalf("MULTI replies %q, want %q", got, want)
	}
}
