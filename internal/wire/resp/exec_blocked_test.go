package resp_test

import (
	"slices"
	"testing"

	"github.com/redis/go-redis/v9"
)

// Ensure that a client blocked in BLPOP is served after the whole EXEC, as
// Redis's "MULTI/EXEC is isolated from the point of view of BLPOP": it gets
// the head the last push left, the EXEC's replies count every push, and
// the rest stays in the list. A pipeline serves it after each command.
func TestBlockedServedAfterExec(t *testing.T) {
	e := newEnv(t)
	c := e.client(2)
	waiter := e.client(2)
	ctx := t.Context()

	ch := goBLPop(t, waiter, 0, "list")
	waitBlockedCount(t, e, 1)
	var cmds []redis.Cmder
	_, err := c.TxPipelined(ctx, func(p redis.Pipeliner) error {
		cmds = append(cmds, p.LPush(ctx, "list", "a"), p.LPush(ctx, "list", "b"), p.LPush(ctx, "list", "c"))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for i, cmd := range cmds {
		if n := cmd.(*redis.IntCmd).Val(); n != int64(i+1) {
			t.Fatalf("EXEC reply %d: %d", i, n)
		}
	}
	if r := recv(t, ch); r.err != nil || !slices.Equal(r.val, []string{"list", "c"}) {
		t.Fatalf("BLPOP after EXEC: %v %v", r.val, r.err)
	}
	if v := c.LRange(ctx, "list", 0, -1).Val(); !slices.Equal(v, []string{"b", "a"}) {
		t.Fatalf("list after EXEC: %v", v)
	}

	// Two waiters on two keys an EXEC fills in turn, one key twice.
	c.Del(ctx, "list")
	w1, w2 := goBLPop(t, waiter, 0, "k1"), goBLPop(t, e.client(2), 0, "k2")
	waitBlockedCount(t, e, 2)
	_, err = c.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.RPush(ctx, "k2", "x")
		p.RPush(ctx, "k1", "y")
		p.RPush(ctx, "k2", "z")
		p.LPop(ctx, "k1")
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if r := recv(t, w2); !slices.Equal(r.val, []string{"k2", "x"}) {
		t.Fatalf("waiter on k2: %v %v", r.val, r.err)
	}
	// The EXEC's LPOP emptied k1 again: its waiter still waits.
	c.RPush(ctx, "k1", "later")
	if r := recv(t, w1); !slices.Equal(r.val, []string{"k1", "later"}) {
		t.Fatalf("waiter on k1: %v %v", r.val, r.err)
	}

	// A pipeline (no MULTI) serves the waiter after the first push.
	ch = goBLPop(t, waiter, 0, "p")
	waitBlockedCount(t, e, 1)
	if _, err := c.Pipelined(ctx, func(p redis.Pipeliner) error {
		p.LPush(ctx, "p", "a")
		p.LPush(ctx, "p", "b")
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if r := recv(t, ch); !slices.Equal(r.val, []string{"p", "a"}) {
		t.Fatalf("BLPOP after a pipeline: %v %v", r.val, r.err)
	}
}
