package resp_test

import (
	"fmt"
	"testing"

	"github.com/redis/go-redis/v9"
)

// BenchmarkSetGet measures SET and GET through a real connection, one
// request at a time and pipelined 100 deep (one kv transaction per chunk).
func BenchmarkSetGet(b *testing.B) {
	e := newEnvB(b)
	c := redis.NewClient(&redis.Options{Addr: e.addr, Protocol: 2, DisableIdentity: true})
	defer c.Close()
	ctx := b.Context()
	b.Run("set", func(b *testing.B) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			if err := c.Set(ctx, fmt.Sprintf("key:%d", i%10000), "value", 0).Err(); err != nil {
				b.Fatal(err)
			}
			i++
		}
	})
	b.Run("get", func(b *testing.B) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			if err := c.Get(ctx, fmt.Sprintf("key:%d", i%10000)).Err(); err != nil && err != redis.Nil {
				b.Fatal(err)
			}
			i++
		}
	})
	b.Run("set-pipeline-100", func(b *testing.B) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			p := c.Pipeline()
			for j := 0; j < 100; j++ {
				p.Set(ctx, fmt.Sprintf("key:%d", (i*100+j)%10000), "value", 0)
			}
			if _, err := p.Exec(ctx); err != nil {
				b.Fatal(err)
			}
			i++
		}
		b.ReportMetric(float64(b.N*100)/b.Elapsed().Seconds(), "sets/s")
	})
	b.Run("get-pipeline-100", func(b *testing.B) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			p := c.Pipeline()
			for j := 0; j < 100; j++ {
				p.Get(ctx, fmt.Sprintf("key:%d", (i*100+j)%10000))
			}
			if _, err := p.Exec(ctx); err != nil && err != redis.Nil {
				b.Fatal(err)
			}
			i++
		}
		b.ReportMetric(float64(b.N*100)/b.Elapsed().Seconds(), "gets/s")
	})
}
