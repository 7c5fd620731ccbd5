package kv_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mayfly/mayfly/internal/kv"
)

// Ensure that the sampled LRU of Redis's defaults (5 samples, a pool of
// 16) keeps a cache of numbered keys close to true LRU: after 5000 writes
// into room for about 840 keys, the keys left are the newest. (A key read
// every second is as recent as the last second's writes, so an
// approximated LRU may evict it: it is not asserted.)
func TestSampledLRUKeepsRecentKeys(t *testing.T) {
	s, _, c, _, _ := newStore(t)
	s.SetEviction(kv.Eviction{MaxMemory: 200 << 10, Policy: kv.PolicyAllKeysLRU, Samples: 5, Tenacity: 10, LFULogFactor: 10, LFUDecayTime: 1})
	v := strings.Repeat("v", 100)
	const n = 5000
	for i := range n {
		do(t, s, func(tx *kv.Tx) error {
			if oom, err := tx.MakeRoom(nil); oom || err != nil {
				t.Fatalf("MakeRoom: %v %v", oom, err)
			}
			_, err := tx.Set([]byte(fmt.Sprintf("key:%05d", i)), []byte(v), kv.SetOptions{})
			return err
		})
		if i%100 == 0 {
			do(t, s, func(tx *kv.Tx) error { _, _, err := tx.Get([]byte("key:00000")); return err })
			c.Advance(time.Second)
		}
	}
	var left, old int
	for i := 1; i < n; i++ {
		if exists(t, s, fmt.Sprintf("key:%05d", i)) {
			left++
			if i < n-2*840 {
				old++
			}
		}
	}
	t.Logf("%d keys left, %d of them older than the newest 1680", left, old)
	if old*10 > left {
		t.Fatalf("%d of the %d keys left are older than the newest 1680", old, left)
	}
}
