package resp_test

import (
	"bufio"
	"context"
	"errors"
	"io"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/mayfly/mayfly/internal/wire/resp"
)

// blockedClients polls CLIENT LIST (which needs the store, so a client it
// shows in cmd is already waiting with the store released) until n clients
// run cmd.
func blockedClients(t *testing.T, c *redis.Client, cmd string, n int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		list, err := c.ClientList(t.Context()).Result()
		if err != nil {
			t.Fatal(err)
		}
		if strings.Count(list, "cmd="+cmd+" ") >= n {
			return
		}
	}
	t.Fatalf("fewer than %d clients blocked in %s", n, cmd)
}

type popResult struct {
	val []string
	err error
}

func goBLPop(t *testing.T, c *redis.Client, timeout time.Duration, keys ...string) <-chan popResult {
	ch := make(chan popResult, 1)
	go func() {
		v, err := c.BLPop(t.Context(), timeout, keys...).Result()
		ch <- popResult{v, err}
	}()
	return ch
}

// recv returns what a blocked command sent on ch, failing the test if it
// does not return within 5 s.
func recv[T any](t *testing.T, ch <-chan T) T {
	t.Helper()
	select {
	case r := <-ch:
		return r
	case <-time.After(5 * time.Second):
		t.Fatal("blocked command did not return")
	}
	var zero T
	return zero
}

func TestBlockingPopServedByPush(t *testing.T) {
	e := newEnv(t)
	c := e.client(2)
	runSteps(t, e, c, []step{ok("config", "set", "notify-keyspace-events", "KEA")})
	_, next := keyevents(t, e)
	runSteps(t, e, c, []step{
		reply(int64(1), "rpush", "b", "x"),
		reply([]any{"b", "x"}, "blpop", "a", "b", "0"),
		ok("set", "str", "v"),
		fails("WRONGTYPE Operation against a key holding the wrong kind of value", "blpop", "nokey", "str", "0"),
		fails("ERR timeout is negative", "blpop", "a", "-1"),
		fails("ERR timeout is not a float or out of range", "blpop", "a", "x"),
		fails("ERR timeout is not a float or out of range", "blpop", "a", "nan"),
		fails("ERR timeout is out of range", "blpop", "a", "inf"),
	})
	next(4) // rpush, lpop, del, set
	blocker := e.client(2)
	ch := goBLPop(t, blocker, 0, "a", "q")
	blockedClients(t, c, "blpop", 1)
	runSteps(t, e, c, []step{reply(int64(2), "rpush", "q", "1", "2")})
	if r := recv(t, ch); r.err != nil || !slices.Equal(r.val, []string{"q", "1"}) {
		t.Fatalf("BLPOP = %v %v", r.val, r.err)
	}
	runSteps(t, e, c, []step{reply([]any{"2"}, "lrange", "q", "0", "-1")})
	if got := next(2); !slices.Equal(got, []string{"rpush q", "lpop q"}) {
		t.Fatalf("events %v", got)
	}
}

func TestBlockingFIFOAndTimeout(t *testing.T) {
	e := newEnv(t)
	c := e.client(2)
	first, second := e.client(2), e.client(2)
	ch1 := goBLPop(t, first, 0, "q")
	blockedClients(t, c, "blpop", 1)
	ch2 := make(chan popResult, 1)
	go func() {
		v, err := second.BRPop(t.Context(), 0, "q").Result()
		ch2 <- popResult{v, err}
	}()
	blockedClients(t, c, "brpop", 1)
	// One push of three elements: the first waiter is served first (LPOP
	// side), then the second (RPOP side); one element is left.
	runSteps(t, e, c, []step{reply(int64(3), "rpush", "q", "a", "b", "c")})
	if r := recv(t, ch1); !slices.Equal(r.val, []string{"q", "a"}) {
		t.Fatalf("first waiter %v %v", r.val, r.err)
	}
	if r := recv(t, ch2); !slices.Equal(r.val, []string{"q", "c"}) {
		t.Fatalf("second waiter %v %v", r.val, r.err)
	}
	runSteps(t, e, c, []step{reply([]any{"b"}, "lrange", "q", "0", "-1")})
	// A real timeout on the (real) server clock; decimals allowed.
	start := time.Now()
	v, err := first.Do(t.Context(), "blpop", "empty", "0.1").Result()
	if !errors.Is(err, redis.Nil) || time.Since(start) < 90*time.Millisecond {
		t.Fatalf("timeout: %v %v after %v", v, err, time.Since(start))
	}
}

func TestBlockingTimeoutUsesServerClock(t *testing.T) {
	// The server reads its clock before the env exists: start on the real
	// clock and switch to the fake one.
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
	ch := goBLPop(t, e.client(2), 5*time.Second, "q")
	blockedClients(t, c, "blpop", 1)
	e.clock.Advance(6 * time.Second)
	if r := recv(t, ch); !errors.Is(r.err, redis.Nil) {
		t.Fatalf("after the server clock passed the timeout: %v %v", r.val, r.err)
	}
}

func TestBlockingMoveChainsAndMulti(t *testing.T) {
	e := newEnv(t)
	c := e.client(2)
	moved := make(chan popResult, 1)
	go func() {
		v, err := e.client(2).BLMove(t.Context(), "src", "dst", "LEFT", "RIGHT", 0).Result()
		moved <- popResult{[]string{v}, err}
	}()
	blockedClients(t, c, "blmove", 1)
	ch := goBLPop(t, e.client(2), 0, "dst")
	blockedClients(t, c, "blpop", 1)
	runSteps(t, e, c, []step{reply(int64(1), "lpush", "src", "v")})
	if r := recv(t, moved); r.err != nil || r.val[0] != "v" {
		t.Fatalf("BLMOVE %v %v", r.val, r.err)
	}
	// The element moved to dst went on to the client blocked there.
	if r := recv(t, ch); !slices.Equal(r.val, []string{"dst", "v"}) {
		t.Fatalf("BLPOP on dst %v %v", r.val, r.err)
	}
	runSteps(t, e, c, []step{
		reply(int64(0), "exists", "src", "dst"),
		// Inside MULTI blocking commands answer at once.
		ok("multi"),
		reply("QUEUED", "blpop", "q", "0"),
		reply("QUEUED", "blmove", "q", "dst", "left", "left", "0"),
		reply("QUEUED", "brpop", "q", "0"),
		reply([]any{nil, nil, nil}, "exec"),
		ok("set", "str", "v"),
		reply(int64(1), "rpush", "l", "x"),
		fails("WRONGTYPE Operation against a key holding the wrong kind of value", "blmove", "l", "str", "left", "left", "0"),
		fails("ERR syntax error", "blmove", "l", "str", "up", "left", "0"),
		reply("x", "blmove", "l", "l2", "right", "left", "0"),
	})
}

// TestBlockedClientGone checks that a client that disconnects while blocked
// is not served: the element pushed afterwards stays in the list.
func TestBlockedClientGone(t *testing.T) {
	e := newEnv(t)
	c := e.client(2)
	conn := e.raw()
	if _, err := conn.Write([]byte("*3\r\n$5\r\nBLPOP\r\n$1\r\nq\r\n$1\r\n0\r\n")); err != nil {
		t.Fatal(err)
	}
	blockedClients(t, c, "blpop", 1)
	conn.Close()
	deadline := time.Now().Add(5 * time.Second)
	for {
		list, err := c.ClientList(t.Context()).Result()
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(list, "cmd=blpop") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("blocked client still listed after closing its connection")
		}
	}
	runSteps(t, e, c, []step{
		reply(int64(1), "rpush", "q", "kept"),
		reply([]any{"kept"}, "lrange", "q", "0", "-1"),
	})
}

// TestBlockingFlushesEarlierReplies sends a pipeline whose last command
// blocks: the replies before it arrive while it waits.
func TestBlockingFlushesEarlierReplies(t *testing.T) {
	e := newEnv(t)
	conn := e.raw()
	if _, err := conn.Write([]byte("PING\r\nRPUSH other x\r\nBLPOP q 0\r\n")); err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(conn)
	conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	for _, want := range []string{"+PONG\r\n", ":1\r\n"} {
		line, err := r.ReadString('\n')
		if err != nil || line != want {
			t.Fatalf("read %q %v, want %q", line, err, want)
		}
	}
	c := e.client(2)
	runSteps(t, e, c, []step{reply(int64(1), "lpush", "q", "v")})
	var lines []string
	for range 5 {
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, line)
	}
	if got := strings.Join(lines, ""); got != "*2\r\n$1\r\nq\r\n$1\r\nv\r\n" {
		t.Fatalf("BLPOP reply %q", got)
	}
}

// TestShutdownWithBlockedClient checks that a client blocked forever does
// not hold up a graceful shutdown.
func TestShutdownWithBlockedClient(t *testing.T) {
	e := newEnv(t)
	c := e.client(2)
	goBLPop(t, e.client(2), 0, "q")
	blockedClients(t, c, "blpop", 1)
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Second)
	defer cancel()
	if err := e.srv.Shutdown(ctx); err != nil {
		t.Fatalf("shutdown with a blocked client: %v", err)
	}
}

// Ensure that a client that pipelines big replies before a BLPOP and never
// reads them does not hold the store while its replies wait to be taken:
// every other client is served at once.
func TestBlockingClientNotReadingDoesNotStallOthers(t *testing.T) {
	e := newEnv(t)
	rc := e.client(2)
	if err := rc.Set(t.Context(), "big", strings.Repeat("x", 1<<20), 0).Err(); err != nil {
		t.Fatal(err)
	}
	c := e.raw()
	io.WriteString(c, strings.Repeat("GET big\r\n", 24)+"BLPOP nolist 0\r\n") // 24 MB never read
	for i := range 20 {
		ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
		err := rc.Set(ctx, "k", i, 0).Err()
		cancel()
		if err != nil {
			t.Fatalf("SET %d while a client does not read its replies: %v", i, err)
		}
	}
	c.Close()
}
