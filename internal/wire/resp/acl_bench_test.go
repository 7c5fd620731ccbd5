package resp_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// BenchmarkACLGet measures GET through a real connection as the default
// user (who may run everything: no check) and as a user restricted to
// command categories and key patterns (each GET checked against them).
// Each iteration runs one GET of each, alternately, so that both see the
// same machine; it reports the time of each and the restricted user's
// overhead in percent.
func BenchmarkACLGet(b *testing.B) {
	e := newEnvB(b)
	ctx := b.Context()
	admin := redis.NewClient(&redis.Options{Addr: e.addr, Protocol: 2, DisableIdentity: true})
	defer admin.Close()
	if err := admin.Do(ctx, "acl", "setuser", "bench", "on", ">pw", "+@read", "+@write", "%R~other:*", "~cache:*", "~key:*", "%W~log:*").Err(); err != nil {
		b.Fatal(err)
	}
	for i := range 1000 {
		admin.Set(ctx, fmt.Sprintf("key:%d", i), "value", 0)
	}
	def := redis.NewClient(&redis.Options{Addr: e.addr, Protocol: 2, DisableIdentity: true, PoolSize: 1})
	defer def.Close()
	restricted := redis.NewClient(&redis.Options{Addr: e.addr, Protocol: 2, DisableIdentity: true, PoolSize: 1,
		Username: "bench", Password: "pw"})
	defer restricted.Close()
	var tDef, tRes time.Duration
	i := 0
	for b.Loop() {
		key := fmt.Sprintf("key:%d", i%1000)
		start := time.Now()
		if err := def.Get(ctx, key).Err(); err != nil {
			b.Fatal(err)
		}
		mid := time.Now()
		if err := restricted.Get(ctx, key).Err(); err != nil {
			b.Fatal(err)
		}
		tDef += mid.Sub(start)
		tRes += time.Since(mid)
		i++
	}
	b.ReportMetric(float64(tDef.Nanoseconds())/float64(i), "default-ns/get")
	b.ReportMetric(float64(tRes.Nanoseconds())/float64(i), "restricted-ns/get")
	b.ReportMetric(100*(float64(tRes)-float64(tDef))/float64(tDef), "overhead-%")
}
