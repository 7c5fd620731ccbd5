package integration_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/mayfly/mayfly/integration/harness"
)

// infoValue returns one field of INFO section.
func infoValue(t *testing.T, rc *redis.Client, section, field string) string {
	t.Helper()
	info, err := rc.Info(t.Context(), section).Result()
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(info, "\r\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			return v
		}
	}
	t.Fatalf("INFO %s has no %s:\n%s", section, field, info)
	return ""
}

func infoNumber(t *testing.T, rc *redis.Client, section, field string) int64 {
	t.Helper()
	n, err := strconv.ParseInt(infoValue(t, rc, section, field), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// Ensure that a server started with maxmemory and an LRU policy (from a
// config file) stays within its bound as a cache, evicting the
// oldest keys, and that the counted memory is rebuilt after a restart.
func TestRedisMaxmemoryCache(t *testing.T) {
	dir := t.TempDir()
	conf := filepath.Join(t.TempDir(), "mayfly.conf")
	if err := os.WriteFile(conf, []byte("resp-config = maxmemory=200kb\nresp-config = maxmemory-policy=allkeys-lru\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	args := []string{"--config", conf, "--manual-clock"}
	s := harness.StartDir(t, dir, args...)
	rc := redis.NewClient(&redis.Options{Addr: s.RespAddr})
	defer rc.Close()
	ctx := t.Context()
	if got := rc.ConfigGet(ctx, "maxmemory").Val()["maxmemory"]; got != "204800" {
		t.Fatalf("maxmemory %q", got)
	}
	if got := infoValue(t, rc, "memory", "maxmemory_policy"); got != "allkeys-lru" {
		t.Fatalf("maxmemory_policy %q", got)
	}
	value := strings.Repeat("v", 100)
	for i := range 5000 {
		if err := rc.Set(ctx, fmt.Sprintf("key:%05d", i), value, 0).Err(); err != nil {
			t.Fatalf("SET %d: %v", i, err)
		}
		if i%100 == 0 {
			s.Advance(t, time.Second) // idle time counts whole seconds
		}
	}
	// Eviction runs before each command, so the last SET may leave used
	// memory over the bound by the key it wrote (56 bytes + name + value).
	used := infoNumber(t, rc, "memory", "used_memory")
	if used > 204800+56+9+100 {
		t.Fatalf("used_memory %d over maxmemory", used)
	}
	evicted := infoNumber(t, rc, "stats", "evicted_keys")
	n := rc.DBSize(ctx).Val()
	if evicted == 0 || n+evicted != 5000 {
		t.Fatalf("%d keys and %d evicted, want 5000 in all", n, evicted)
	}
	old := 0 // of the first half written, almost none is left
	for i := 1; i < 2500; i++ {
		old += int(rc.Exists(ctx, fmt.Sprintf("key:%05d", i)).Val())
	}
	if old*10 > int(n) {
		t.Errorf("%d of the %d keys left are of the first 2500 written", old, n)
	}
	if rc.Exists(ctx, "key:04999").Val() != 1 {
		t.Error("the newest key was evicted")
	}
	dataset := infoNumber(t, rc, "memory", "used_memory_dataset")
	if err := s.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	s = harness.StartDir(t, dir, args...)
	rc2 := redis.NewClient(&redis.Options{Addr: s.RespAddr})
	defer rc2.Close()
	if got := infoNumber(t, rc2, "memory", "used_memory_dataset"); got != dataset {
		t.Fatalf("after a restart used_memory_dataset %d, want %d", got, dataset)
	}
	// noeviction at runtime: writes are refused, reads go on.
	if err := rc2.ConfigSet(ctx, "maxmemory-policy", "noeviction").Err(); err != nil {
		t.Fatal(err)
	}
	if err := rc2.ConfigSet(ctx, "maxmemory", "100kb").Err(); err != nil {
		t.Fatal(err)
	}
	if err := rc2.Set(ctx, "more", "x", 0).Err(); err == nil || err.Error() != "OOM command not allowed when used memory > 'maxmemory'." {
		t.Fatalf("SET over the limit under noeviction: %v", err)
	}
	if got := rc2.Get(ctx, "key:04999").Val(); got != value {
		t.Fatalf("GET over the limit: %q", got)
	}
}
