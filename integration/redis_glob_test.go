package integration_test

import (
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/mayfly/mayfly/integration/harness"
)

// TestRedisGlobNestedStars is Redis's "Regression for pattern matching long
// nested loops", through go-redis against the real binary: a pattern of
// many '*' over a subject that almost matches answers at once on every path
// that matches patterns (KEYS, SCAN, HSCAN, SSCAN, ZSCAN, PSUBSCRIBE).
func TestRedisGlobNestedStars(t *testing.T) {
	s := harness.Start(t)
	rc := redis.NewClient(&redis.Options{Addr: s.RespAddr, MaxRetries: -1, ReadTimeout: 10 * time.Second})
	t.Cleanup(func() { rc.Close() })
	ctx := t.Context()
	long := strings.Repeat("a", 300)
	pattern := strings.Repeat("a*", 32) + "b"
	if err := rc.Set(ctx, long, "1", 0).Err(); err != nil {
		t.Fatal(err)
	}
	if err := rc.HSet(ctx, "h", long, "1").Err(); err != nil {
		t.Fatal(err)
	}
	if err := rc.SAdd(ctx, "s", long).Err(); err != nil {
		t.Fatal(err)
	}
	if err := rc.ZAdd(ctx, "z", redis.Z{Score: 1, Member: long}).Err(); err != nil {
		t.Fatal(err)
	}
	if keys, err := rc.Keys(ctx, pattern).Result(); err != nil || len(keys) != 0 {
		t.Fatalf("KEYS: %v %v", keys, err)
	}
	if keys, _, err := rc.Scan(ctx, 0, pattern, 100).Result(); err != nil || len(keys) != 0 {
		t.Fatalf("SCAN: %v %v", keys, err)
	}
	if got, _, err := rc.HScan(ctx, "h", 0, pattern, 100).Result(); err != nil || len(got) != 0 {
		t.Fatalf("HSCAN: %v %v", got, err)
	}
	if got, _, err := rc.SScan(ctx, "s", 0, pattern, 100).Result(); err != nil || len(got) != 0 {
		t.Fatalf("SSCAN: %v %v", got, err)
	}
	if got, _, err := rc.ZScan(ctx, "z", 0, pattern, 100).Result(); err != nil || len(got) != 0 {
		t.Fatalf("ZSCAN: %v %v", got, err)
	}
	// The same pattern ending in 'a' matches.
	if keys, err := rc.Keys(ctx, strings.Repeat("a*", 32)+"a").Result(); err != nil || len(keys) != 1 {
		t.Fatalf("KEYS matching: %v %v", keys, err)
	}

	sub := rc.PSubscribe(ctx, pattern, "a*a")
	defer sub.Close()
	if _, err := sub.Receive(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := sub.Receive(ctx); err != nil {
		t.Fatal(err)
	}
	if n, err := rc.Publish(ctx, long, "hi").Result(); err != nil || n != 1 {
		t.Fatalf("PUBLISH reached %d subscriptions: %v", n, err)
	}
	msg, err := sub.ReceiveMessage(ctx)
	if err != nil || msg.Pattern != "a*a" || msg.Payload != "hi" {
		t.Fatalf("message %+v %v", msg, err)
	}
}
