package integration_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/mayfly/mayfly/integration/harness"
)

// Ensure that a cache of hashes holds about its bound in user data: a
// server with maxmemory N and allkeys-lru, filled with hashes of four 1 KB
// values far past N, keeps between 0.8N and 1.0N bytes of fields and
// values, and MEMORY USAGE of a hash is what it counts: 56 bytes + its
// name + its 32-byte record + its fields and values + 16 bytes per field.
func TestRedisMaxmemoryCountsCollectionSizes(t *testing.T) {
	const limit = 1 << 20
	s := harness.Start(t, "--resp-config", fmt.Sprintf("maxmemory=%d", limit), "--resp-config", "maxmemory-policy=allkeys-lru")
	rc := redis.NewClient(&redis.Options{Addr: s.RespAddr})
	defer rc.Close()
	ctx := t.Context()
	value := strings.Repeat("v", 1024)
	const hashes = 2000 // 8 MB of values
	for i := range hashes {
		if err := rc.HSet(ctx, fmt.Sprintf("h:%05d", i), "f0", value, "f1", value, "f2", value, "f3", value).Err(); err != nil {
			t.Fatalf("HSET %d: %v", i, err)
		}
	}
	if got, want := rc.MemoryUsage(ctx, fmt.Sprintf("h:%05d", hashes-1)).Val(), int64(56+7+32+4*(2+1024)+4*16); got != want {
		t.Fatalf("MEMORY USAGE of a hash %d, want %d", got, want)
	}
	var data, keys int64
	iter := rc.Scan(ctx, 0, "h:*", 100).Iterator()
	for iter.Next(ctx) {
		fields, err := rc.HGetAll(ctx, iter.Val()).Result()
		if err != nil {
			t.Fatal(err)
		}
		for f, v := range fields {
			data += int64(len(f) + len(v))
		}
		keys++
	}
	if err := iter.Err(); err != nil {
		t.Fatal(err)
	}
	evicted := infoNumber(t, rc, "stats", "evicted_keys")
	used := infoNumber(t, rc, "memory", "used_memory")
	t.Logf("maxmemory %d: %d hashes hold %d bytes of fields and values (%.2f of the bound); used_memory %d, %d evicted",
		limit, keys, data, float64(data)/limit, used, evicted)
	if keys+evicted != hashes {
		t.Fatalf("%d hashes and %d evicted, want %d in all", keys, evicted, hashes)
	}
	if data < limit*8/10 || data > limit {
		t.Fatalf("the cache holds %d bytes of user data, want between 0.8 and 1.0 of maxmemory %d", data, limit)
	}
}
