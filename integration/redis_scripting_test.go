package integration_test

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/mayfly/mayfly/integration/harness"
)

// TestRedisScripting drives EVAL, EVALSHA and SCRIPT through go-redis
// against the real binary: go-redis's Script (EVALSHA, then EVAL on
// NOSCRIPT), a rate limiter's atomic INCR and PEXPIRE run by many clients
// at once, Redlock's release, and Redis's error words.
func TestRedisScripting(t *testing.T) {
	s := harness.Start(t)
	rc := redis.NewClient(&redis.Options{Addr: s.RespAddr, MaxRetries: -1, ReadTimeout: 10 * time.Second, PoolSize: 20})
	t.Cleanup(func() { rc.Close() })
	ctx := t.Context()

	limiter := redis.NewScript(`
local n = redis.call('incr', KEYS[1])
if n == 1 then redis.call('pexpire', KEYS[1], ARGV[1]) end
return n`)
	const clients, each = 10, 20
	var wg sync.WaitGroup
	seen := make(chan int64, clients*each)
	for range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range each {
				n, err := limiter.Run(ctx, rc, []string{"rate"}, 60000).Int64()
				if err != nil {
					t.Error(err)
					return
				}
				seen <- n
			}
		}()
	}
	wg.Wait()
	close(seen)
	got := make(map[int64]bool)
	for n := range seen {
		if got[n] {
			t.Fatalf("count %d returned twice: the script is not atomic", n)
		}
		got[n] = true
	}
	if len(got) != clients*each {
		t.Fatalf("got %d distinct counts, want %d", len(got), clients*each)
	}
	if ttl, err := rc.PTTL(ctx, "rate").Result(); err != nil || ttl <= 0 || ttl > time.Minute {
		t.Fatalf("pttl = %v %v", ttl, err)
	}

	release := redis.NewScript(`if redis.call('get',KEYS[1]) == ARGV[1] then return redis.call('del',KEYS[1]) else return 0 end`)
	if ok, err := rc.SetNX(ctx, "lock", "me", 10*time.Second).Result(); err != nil || !ok {
		t.Fatalf("setnx = %v %v", ok, err)
	}
	if n, err := release.Run(ctx, rc, []string{"lock"}, "other").Int64(); err != nil || n != 0 {
		t.Fatalf("release by other = %v %v", n, err)
	}
	if n, err := release.Run(ctx, rc, []string{"lock"}, "me").Int64(); err != nil || n != 1 {
		t.Fatalf("release = %v %v", n, err)
	}

	sha, err := rc.ScriptLoad(ctx, "return {KEYS[1], ARGV[1], redis.call('exists', KEYS[1])}").Result()
	if err != nil {
		t.Fatal(err)
	}
	if v, err := rc.EvalSha(ctx, sha, []string{"k"}, "a").Slice(); err != nil || len(v) != 3 || v[0] != "k" || v[1] != "a" || v[2] != int64(0) {
		t.Fatalf("evalsha = %v %v", v, err)
	}
	if ex, err := rc.ScriptExists(ctx, sha).Result(); err != nil || !ex[0] {
		t.Fatalf("script exists = %v %v", ex, err)
	}
	if err := rc.ScriptFlush(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	if err := rc.EvalSha(ctx, sha, nil).Err(); err == nil || err.Error() != "NOSCRIPT No matching script. Please use EVAL." {
		t.Fatalf("evalsha after flush = %v", err)
	}
	err = rc.Eval(ctx, "return redis.call('nosuch')", nil).Err()
	if err == nil || !strings.HasPrefix(err.Error(), "ERR Unknown Redis command called from script script: ") ||
		!strings.HasSuffix(err.Error(), ", on @user_script:1.") {
		t.Fatalf("unknown command = %v", err)
	}
	if err := rc.EvalRO(ctx, "return redis.call('set', 'x', 1)", nil).Err(); err == nil ||
		!strings.HasPrefix(err.Error(), "ERR Write commands are not allowed from read-only scripts.") {
		t.Fatalf("eval_ro write = %v", err)
	}
}
