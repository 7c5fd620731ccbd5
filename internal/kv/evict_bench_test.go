package kv_test

import (
	"fmt"
	"testing"

	"github.com/mayfly/mayfly/internal/kv"
)

// BenchmarkEvict measures a SET of a new key with an expiry in a store at
// its maxmemory, the SET's eviction of one key included, for each policy
// that picks among keys with an expiry and for allkeys-lru: volatile-ttl
// reads the first entry of the expiry index, the others sample.
func BenchmarkEvict(b *testing.B) {
	const keys = 20000
	for _, p := range []kv.Policy{kv.PolicyVolatileTTL, kv.PolicyVolatileLRU, kv.PolicyVolatileLFU, kv.PolicyVolatileRandom, kv.PolicyAllKeysLRU} {
		b.Run(p.String(), func(b *testing.B) {
			s, _, c, _, _ := newStore(b)
			now := c.Now().UnixMilli()
			for i := 0; i < keys; i += 1000 {
				do(b, s, func(tx *kv.Tx) error {
					for j := i; j < i+1000; j++ {
						k := fmt.Sprintf("key:%08d", j)
						if _, err := tx.Set([]byte(k), []byte("value"), kv.SetOptions{ExpireAt: now + 3600_000 + int64(j)}); err != nil {
							return err
						}
					}
					return nil
				})
			}
			s.SetEviction(kv.Eviction{MaxMemory: s.UsedMemory(), Policy: p, Samples: 5, Tenacity: 10, LFULogFactor: 10, LFUDecayTime: 1})
			b.ResetTimer()
			for i := range b.N {
				do(b, s, func(tx *kv.Tx) error {
					k := fmt.Sprintf("new:%08d", i)
					if _, err := tx.Set([]byte(k), []byte("value"), kv.SetOptions{ExpireAt: now + 7200_000 + int64(i)}); err != nil {
						return err
					}
					oom, err := tx.MakeRoom(nil)
					if oom {
						b.Fatal("OOM")
					}
					return err
				})
			}
			b.StopTimer()
			if n := s.Stats().EvictedKeys; n < int64(b.N) {
				b.Fatalf("%d evictions for %d SETs", n, b.N)
			}
		})
	}
}
