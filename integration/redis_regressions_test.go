package integration_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/mayfly/mayfly/integration/harness"
)

// waitBlocked polls CLIENT LIST until n clients run cmd.
func waitBlocked(t *testing.T, rc *redis.Client, cmd string, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		list, err := rc.ClientList(t.Context()).Result()
		if err != nil {
			t.Fatal(err)
		}
		if strings.Count(list, "cmd="+cmd+" ") >= n {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("fewer than %d clients in %s", n, cmd)
}

// TestRedisSetRangeHugeOffset: SETRANGE at an offset near 2^63 is refused
// as Redis refuses it, the offset plus the value's length overflowing no
// check, and the server goes on serving.
func TestRedisSetRangeHugeOffset(t *testing.T) {
	s := harness.Start(t)
	rc := connectRedis(t, s)
	ctx := t.Context()
	const tooBig = "ERR string exceeds maximum allowed size (proto-max-bulk-len)"
	if err := rc.Set(ctx, "k", "hello", 0).Err(); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"k", "missing"} {
		for _, off := range []int64{1<<63 - 1, 1<<63 - 2, 1 << 62, 512 << 20} {
			if err := rc.SetRange(ctx, key, off, "x").Err(); err == nil || err.Error() != tooBig {
				t.Fatalf("SETRANGE %s %d: %v", key, off, err)
			}
		}
	}
	if v, err := rc.Get(ctx, "k").Result(); err != nil || v != "hello" {
		t.Fatalf("GET after refused SETRANGEs: %q %v", v, err)
	}
	if v, err := rc.GetRange(ctx, "k", 1<<63-1, 1<<63-1).Result(); err != nil || v != "" {
		t.Fatalf("GETRANGE at the end of the range: %q %v", v, err)
	}
}

// TestRedisRandomKeyReturnsEveryKey: over 8 keys, 400 RANDOMKEYs bring
// every key back (Redis's own test asks for each of two in 100).
func TestRedisRandomKeyReturnsEveryKey(t *testing.T) {
	s := harness.Start(t)
	rc := connectRedis(t, s)
	ctx := t.Context()
	for i := 1; i <= 8; i++ {
		if err := rc.Set(ctx, fmt.Sprintf("key:%d", i), "v", 0).Err(); err != nil {
			t.Fatal(err)
		}
	}
	seen := map[string]int{}
	for range 400 {
		k, err := rc.RandomKey(ctx).Result()
		if err != nil {
			t.Fatal(err)
		}
		seen[k]++
	}
	if len(seen) != 8 {
		t.Fatalf("RANDOMKEY brought back %d of 8 keys: %v", len(seen), seen)
	}
}

// TestRedisBlockedServedAfterExec is Redis's "MULTI/EXEC is isolated from
// the point of view of BLPOP" through go-redis against the real binary:
// the blocked client gets the head that the last push of the EXEC left.
func TestRedisBlockedServedAfterExec(t *testing.T) {
	s := harness.Start(t)
	rc := connectRedis(t, s)
	waiter := connectRedis(t, s)
	ctx := t.Context()
	got := make(chan []string, 1)
	go func() {
		v, err := waiter.BLPop(ctx, 0, "list").Result()
		if err != nil {
			v = []string{err.Error()}
		}
		got <- v
	}()
	waitBlocked(t, rc, "blpop", 1)
	cmds, err := rc.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.LPush(ctx, "list", "a")
		p.LPush(ctx, "list", "b")
		p.LPush(ctx, "list", "c")
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
	select {
	case v := <-got:
		if !slices.Equal(v, []string{"list", "c"}) {
			t.Fatalf("BLPOP got %v", v)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("BLPOP not served after EXEC")
	}
	if v := rc.LRange(ctx, "list", 0, -1).Val(); !slices.Equal(v, []string{"b", "a"}) {
		t.Fatalf("list after EXEC: %v", v)
	}
}
