package integration_test

import (
	"fmt"
	"testing"

	"github.com/mayfly/mayfly/integration/harness"
)

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
