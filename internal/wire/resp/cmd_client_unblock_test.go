package resp_test

import (
	"errors"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// Ensure that CLIENT UNBLOCK releases a client blocked in BLPOP or BZPOPMIN
// as if its timeout had passed (TIMEOUT, the default) or with Redis's
// UNBLOCKED error (ERROR), answers 0 for a client that is not blocked, and
// refuses another reason.
func TestClientUnblock(t *testing.T) {
	e := newEnv(t)
	c := e.client(2)
	waiter := e.client(2).Conn() // one connection: its id is the one blocked
	defer waiter.Close()
	ctx := t.Context()
	id := waiter.ClientID(ctx).Val()
	goBLPop := func(key string) <-chan popResult {
		ch := make(chan popResult, 1)
		go func() {
			v, err := waiter.BLPop(ctx, 0, key).Result()
			ch <- popResult{v, err}
		}()
		return ch
	}
	if n := c.ClientUnblock(ctx, id).Val(); n != 0 {
		t.Fatalf("CLIENT UNBLOCK of an idle client: %d", n)
	}
	for _, mode := range []string{"", "timeout", "error"} {
		ch := goBLPop("nothing")
		waitBlockedCount(t, e, 1)
		args := []any{"client", "unblock", id}
		if mode != "" {
			args = append(args, mode)
		}
		if n, err := c.Do(ctx, args...).Int64(); err != nil || n != 1 {
			t.Fatalf("CLIENT UNBLOCK %s: %d %v", mode, n, err)
		}
		r := recv(t, ch)
		switch mode {
		case "error":
			if r.err == nil || r.err.Error() != "UNBLOCKED client unblocked via CLIENT UNBLOCK" {
				t.Fatalf("BLPOP unblocked with ERROR: %v %v", r.val, r.err)
			}
		default:
			if !errors.Is(r.err, redis.Nil) {
				t.Fatalf("BLPOP unblocked with %q: %v %v", mode, r.val, r.err)
			}
		}
	}
	// A sorted set pop, and the waiter is gone from the key: a later push
	// stays in the list.
	zch := make(chan error, 1)
	go func() { zch <- waiter.BZPopMin(ctx, 0, "z").Err() }()
	waitBlockedCount(t, e, 1)
	if n := c.ClientUnblock(ctx, id).Val(); n != 1 {
		t.Fatalf("CLIENT UNBLOCK of BZPOPMIN: %d", n)
	}
	if err := recv(t, zch); !errors.Is(err, redis.Nil) {
		t.Fatalf("BZPOPMIN unblocked: %v", err)
	}
	runSteps(t, e, c, []step{
		reply(int64(1), "zadd", "z", "1", "a"),
		reply(int64(1), "zcard", "z"),
		reply(int64(0), "client", "unblock", "999999"),
		reply(int64(0), "client", "unblock", "-1"),
		fails("ERR CLIENT UNBLOCK reason should be TIMEOUT or ERROR", "client", "unblock", "1", "later"),
		fails("ERR value is not an integer or out of range", "client", "unblock", "x"),
		fails("ERR unknown subcommand or wrong number of arguments for 'unblock'. Try CLIENT HELP.", "client", "unblock", "1", "error", "x"),
		fails("ERR wrong number of arguments for 'client|unblock' command", "client", "unblock"),
	})
}

// Ensure that CLIENT KILL refuses bad filters with Redis 7's words.
func TestClientKillErrors(t *testing.T) {
	e := newEnv(t)
	c := e.client(2)
	runSteps(t, e, c, []step{
		fails("ERR wrong number of arguments for 'client|kill' command", "client", "kill"),
		fails("ERR syntax error", "client", "kill", "id", "10", "wrong_arg"),
		fails("ERR client-id should be greater than 0", "client", "kill", "id", "str"),
		fails("ERR client-id should be greater than 0", "client", "kill", "id", "-1"),
		fails("ERR client-id should be greater than 0", "client", "kill", "id", "0"),
		fails("ERR Unknown client type 'wrong_type'", "client", "kill", "type", "wrong_type"),
		fails("ERR No such user 'wrong_user'", "client", "kill", "user", "wrong_user"),
		fails("ERR syntax error", "client", "kill", "skipme", "yes_or_no"),
		fails("ERR No such client", "client", "kill", "127.0.0.1:1"),
		reply(int64(0), "client", "kill", "type", "pubsub"),
		reply(int64(0), "client", "kill", "type", "master"),
		reply(int64(0), "client", "kill", "user", "default"),
	})
}

// waitBlockedCount waits until INFO's blocked_clients is n, woken by the
// server each time a client starts or stops blocking: unlike CLIENT
// LIST's last command, it counts only the clients blocked now.
func waitBlockedCount(t *testing.T, e *env, n int) {
	t.Helper()
	timeout := time.After(5 * time.Second)
	for {
		changed := e.srv.ClientsChanged()
		if e.srv.BlockedClients() == n {
			return
		}
		select {
		case <-changed:
		case <-timeout:
			t.Fatalf("blocked_clients never %d", n)
		}
	}
}
