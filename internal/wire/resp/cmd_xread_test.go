package resp_test

import (
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

func TestXReadSync(t *testing.T) {
	e := newEnv(t)
	c := e.client(2)
	runSteps(t, e, c, []step{
		reply("1-0", "xadd", "a", "1-0", "f", "1"),
		reply("2-0", "xadd", "a", "2-0", "f", "2"),
		reply("5-0", "xadd", "b", "5-0", "g", "5"),
		reply([]any{
			[]any{"a", []any{entry("2-0", "f", "2")}},
			[]any{"b", []any{entry("5-0", "g", "5")}},
		}, "xread", "streams", "a", "b", "nokey", "1", "0", "0"),
		reply([]any{[]any{"a", []any{entry("1-0", "f", "1")}}}, "xread", "count", "1", "streams", "a", "b", "0", "$"),
		reply(nil, "xread", "streams", "a", "$"),
	})
	// Inside MULTI a blocking read answers at once.
	pipe := c.TxPipeline()
	cmd := pipe.Do(t.Context(), "xread", "block", "0", "streams", "a", "$")
	if _, err := pipe.Exec(t.Context()); err != redis.Nil && err != nil {
		t.Fatal(err)
	}
	if v, err := cmd.Result(); err != redis.Nil || v != nil {
		t.Fatalf("XREAD BLOCK 0 in MULTI: %v %v", v, err)
	}
	runSteps(t, e, c, []step{
		fails("ERR syntax error", "xread", "count", "1", "x"),
		fails("ERR Unbalanced XREAD list of streams: for each stream key an ID or '$' must be specified.", "xread", "streams", "a", "b", "0"),
		fails("ERR The GROUP option is only supported by XREADGROUP. You called XREAD instead.", "xread", "group", "g", "c", "streams", "a", "0"),
		fails("ERR The NOACK option is only supported by XREADGROUP. You called XREAD instead.", "xread", "noack", "streams", "a", "0"),
		fails("ERR The > ID can be specified only when calling XREADGROUP using the GROUP <group> <consumer> option.", "xread", "streams", "a", ">"),
		fails("ERR Invalid stream ID specified as stream command argument", "xread", "streams", "a", "+"),
		fails("ERR timeout is negative", "xread", "block", "-1", "streams", "a", "0"),
		fails("ERR timeout is not an integer or out of range", "xread", "block", "1.5", "streams", "a", "0"),
		ok("set", "str", "v"),
		fails(wrongType, "xread", "streams", "str", "0"),
		fails("ERR xread command is not allowed with BLOCK option from scripts script: 107276f73420b7d018446872137de2614a65b256, on @user_script:1.", "eval", "return redis.call('xread','block','0','streams','a','$')", "0"),
		reply([]any{[]any{"a", []any{entry("1-0", "f", "1")}}}, "eval", "return redis.call('xread','count','1','streams','a','0')", "0"),
	})
	c3 := e.client(3)
	got, err := c3.Do(t.Context(), "xread", "count", "1", "streams", "a", "0").Result()
	want := map[any]any{"a": []any{entry("1-0", "f", "1")}}
	if err != nil || len(got.(map[any]any)) != 1 {
		t.Fatalf("RESP3 XREAD: %#v %v, want %#v", got, err, want)
	}
}

func TestXReadBlockServedByXAdd(t *testing.T) {
	e := newEnv(t)
	c := e.client(2)
	runSteps(t, e, c, []step{reply("1-0", "xadd", "a", "1-0", "f", "1")})
	w1, w2 := e.client(2), e.client(2)
	r1 := goDo(t, w1, "xread", "block", "0", "streams", "a", "nokey", "$", "$")
	blockedClients(t, c, "xread", 1)
	r2 := goDo(t, w2, "xread", "block", "0", "streams", "nokey", "0")
	blockedClients(t, c, "xread", 2)
	runSteps(t, e, c, []step{reply("2-0", "xadd", "a", "2-0", "f", "2")})
	if r := recv(t, r1); r.err != nil || len(r.v.([]any)) != 1 || r.v.([]any)[0].([]any)[0] != "a" {
		t.Fatalf("first waiter: %#v %v", r.v, r.err)
	}
	// Every waiter of a stream is served, each after its own ID.
	runSteps(t, e, c, []step{reply("3-0", "xadd", "nokey", "3-0", "g", "3")})
	r := recv(t, r2)
	want := []any{[]any{"nokey", []any{entry("3-0", "g", "3")}}}
	if r.err != nil || len(r.v.([]any)) != 1 || r.v.([]any)[0].([]any)[0] != want[0].([]any)[0] {
		t.Fatalf("second waiter: %#v %v", r.v, r.err)
	}
	// At the timeout: a null array.
	r3 := goDo(t, w1, "xread", "block", "50", "streams", "a", "$")
	blockedClients(t, c, "xread", 1)
	e.clock.Advance(100 * time.Millisecond)
	if r := recv(t, r3); r.err != redis.Nil {
		t.Fatalf("timed out XREAD: %#v %v", r.v, r.err)
	}
}

func TestXReadGroupBlock(t *testing.T) {
	e := newEnv(t)
	c := e.client(2)
	runSteps(t, e, c, []step{
		reply("1-0", "xadd", "s", "1-0", "f", "1"),
		ok("xgroup", "create", "s", "g", "$"),
	})
	w1, w2 := e.client(2), e.client(2)
	r1 := goDo(t, w1, "xreadgroup", "group", "g", "alice", "block", "0", "streams", "s", ">")
	blockedClients(t, c, "xreadgroup", 1)
	r2 := goDo(t, w2, "xreadgroup", "group", "g", "bob", "block", "0", "streams", "s", ">")
	blockedClients(t, c, "xreadgroup", 2)
	// One entry: the first consumer gets it, the second keeps waiting
	// for the next, as the group moved on.
	runSteps(t, e, c, []step{reply("2-0", "xadd", "s", "2-0", "f", "2")})
	if r := recv(t, r1); r.err != nil || r.v.([]any)[0].([]any)[1].([]any)[0].([]any)[0] != "2-0" {
		t.Fatalf("alice: %#v %v", r.v, r.err)
	}
	runSteps(t, e, c, []step{
		reply([]any{int64(1), "2-0", "2-0", []any{[]any{"alice", "1"}}}, "xpending", "s", "g"),
		reply(int64(1), "xgroup", "destroy", "s", "g"),
	})
	if r := recv(t, r2); r.err == nil || r.err.Error() != "NOGROUP the consumer group this client was blocked on no longer exists" {
		t.Fatalf("bob after XGROUP DESTROY: %#v %v", r.v, r.err)
	}
	// A deleted key ends the wait with an error.
	runSteps(t, e, c, []step{ok("xgroup", "create", "s", "g", "$")})
	r3 := goDo(t, w1, "xreadgroup", "group", "g", "alice", "block", "0", "streams", "s", ">")
	waitBlockedCount(t, e, 1)
	runSteps(t, e, c, []step{reply(int64(1), "del", "s")})
	if r := recv(t, r3); r.err == nil || r.err.Error() != "UNBLOCKED the stream key no longer exists" {
		t.Fatalf("after DEL: %#v %v", r.v, r.err)
	}
	// So does a flush, and a SET over the key; an XREAD keeps waiting.
	runSteps(t, e, c, []step{
		reply("1-0", "xadd", "s", "1-0", "f", "1"),
		ok("xgroup", "create", "s", "g", "$"),
	})
	r4 := goDo(t, w1, "xreadgroup", "group", "g", "alice", "block", "0", "streams", "s", ">")
	r5 := goDo(t, w2, "xread", "block", "0", "streams", "s", "$")
	waitBlockedCount(t, e, 2)
	runSteps(t, e, c, []step{ok("set", "s", "v")})
	if r := recv(t, r4); r.err == nil || r.err.Error() != "UNBLOCKED the stream key no longer exists" {
		t.Fatalf("after SET: %#v %v", r.v, r.err)
	}
	runSteps(t, e, c, []step{reply(int64(1), "del", "s"), reply("2-0", "xadd", "s", "2-0", "f", "2")})
	if r := recv(t, r5); r.err != nil {
		t.Fatalf("XREAD after the key was replaced: %#v %v", r.v, r.err)
	}
	runSteps(t, e, c, []step{ok("xgroup", "create", "s", "g", "$")})
	r6 := goDo(t, w1, "xreadgroup", "group", "g", "alice", "block", "0", "streams", "s", ">")
	waitBlockedCount(t, e, 1)
	runSteps(t, e, c, []step{ok("flushall")})
	if r := recv(t, r6); r.err == nil || r.err.Error() != "UNBLOCKED the stream key no longer exists" {
		t.Fatalf("after FLUSHALL: %#v %v", r.v, r.err)
	}
}

func TestXReadGetKeys(t *testing.T) {
	e := newEnv(t)
	c := e.client(2)
	runSteps(t, e, c, []step{
		reply([]any{"a", "b"}, "command", "getkeys", "xread", "count", "1", "block", "0", "streams", "a", "b", "0", "0"),
		reply([]any{"streams"}, "command", "getkeys", "xreadgroup", "group", "streams", "c", "noack", "streams", "streams", ">"),
		reply([]any{"a"}, "command", "getkeys", "xread", "streams", "a", "b", "0"),
		reply([]any{"a"}, "command", "getkeys", "xread", "foo", "streams", "a", "0"),
		fails("ERR Invalid arguments specified for command", "command", "getkeys", "xread", "count", "1", "streams", "a"),
	})
	info, err := e.client(3).Do(t.Context(), "command", "info", "xreadgroup").Slice()
	if err != nil {
		t.Fatal(err)
	}
	specs := info[0].([]any)[8].([]any)
	begin := specs[0].(map[any]any)["begin_search"].(map[any]any)
	if len(specs) != 1 || begin["type"] != "keyword" || begin["spec"].(map[any]any)["startfrom"] != int64(4) {
		t.Fatalf("XREADGROUP key specs: %#v", specs)
	}
}
