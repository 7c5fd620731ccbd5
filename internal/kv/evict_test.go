package kv_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/mayfly/mayfly/internal/kv"
)

// stringCost is what a string key counts: the key, its value and the
// 56 bytes of overhead of a key.
func stringCost(key, val string) int64 { return 56 + int64(len(key)+len(val)) }

func set(t *testing.T, s *kv.Store, key, val string, expireAt int64) {
	t.Helper()
	do(t, s, func(tx *kv.Tx) error {
		_, err := tx.Set([]byte(key), []byte(val), kv.SetOptions{ExpireAt: expireAt})
		return err
	})
}

func exists(t *testing.T, s *kv.Store, key string) bool {
	t.Helper()
	var n int64
	do(t, s, func(tx *kv.Tx) (err error) { n, err = tx.Exists(bs(key)); return })
	return n == 1
}

// makeRoom runs one MakeRoom in its own Tx.
func makeRoom(t *testing.T, s *kv.Store) bool {
	t.Helper()
	var oom bool
	do(t, s, func(tx *kv.Tx) (err error) { oom, err = tx.MakeRoom(nil); return })
	return oom
}

// limitTo sets maxmemory so that exactly the dataset of keep bytes fits.
func limitTo(s *kv.Store, p kv.Policy, keep int64) {
	s.SetEviction(kv.Eviction{MaxMemory: kv.StartupMemory + keep, Policy: p, Samples: 1000, Tenacity: 10, LFULogFactor: 10, LFUDecayTime: 1})
}

func TestUsedMemoryCountsTheKeyspace(t *testing.T) {
	s, st, _, _, _ := newStore(t)
	if got := s.UsedMemory(); got != kv.StartupMemory {
		t.Fatalf("empty: used %d, want %d", got, kv.StartupMemory)
	}
	set(t, s, "a", "12345", 0)
	set(t, s, "bb", "x", 0)
	want := stringCost("a", "12345") + stringCost("bb", "x")
	if got := s.DatasetMemory(); got != want {
		t.Fatalf("two strings: %d, want %d", got, want)
	}
	set(t, s, "a", "1", 0) // an overwrite counts the new value only
	want = stringCost("a", "1") + stringCost("bb", "x")
	if got := s.DatasetMemory(); got != want {
		t.Fatalf("after overwrite: %d, want %d", got, want)
	}
	var setCost int64
	do(t, s, func(tx *kv.Tx) error {
		if _, err := tx.SAdd([]byte("s"), bs("m1", "m2", "m3")); err != nil {
			return err
		}
		before := tx.UsedMemory()
		if _, err := tx.Rename([]byte("s"), []byte("set2"), false); err != nil {
			return err
		}
		setCost = tx.UsedMemory() - kv.StartupMemory - want
		if d := tx.UsedMemory() - before; d != 3 { // "set2" is 3 bytes longer than "s"
			t.Errorf("RENAME changed used memory by %d, want 3", d)
		}
		return nil
	})
	// 56 + the name + the 8-byte record + the members' 6 bytes + 16 each.
	if want := int64(56 + len("set2") + 8 + 6 + 3*16); setCost != want {
		t.Errorf("a set of 3 members counts %d, want %d", setCost, want)
	}
	want += setCost
	if got := s.DatasetMemory(); got != want {
		t.Fatalf("with a set: %d, want %d", got, want)
	}
	// Reopening rebuilds the same figure from storage.
	s2, err := kv.Open(t.Context(), kv.Options{Store: st})
	if err != nil {
		t.Fatal(err)
	}
	if got := s2.DatasetMemory(); got != want {
		t.Fatalf("after reopen: %d, want %d", got, want)
	}
	do(t, s, func(tx *kv.Tx) error { _, err := tx.Del(bs("a")); return err })
	if got := s.DatasetMemory(); got != want-stringCost("a", "1") {
		t.Fatalf("after DEL: %d, want %d", got, want-stringCost("a", "1"))
	}
	do(t, s, func(tx *kv.Tx) error { return tx.FlushAll() })
	if got := s.DatasetMemory(); got != 0 {
		t.Fatalf("after FLUSHALL: %d", got)
	}
}

// fill writes keys k0..k(n-1) of value "v", one second apart; every
// volatile-th key (0: none) gets an expiry, later for later keys.
func fill(t *testing.T, s *kv.Store, c *clock, n, volatile int) []string {
	t.Helper()
	var keys []string
	for i := range n {
		k := fmt.Sprintf("k%02d", i)
		var at int64
		if volatile > 0 && i%volatile == 0 {
			at = c.Now().UnixMilli() + int64(time.Hour/time.Millisecond) + int64(i)
		}
		set(t, s, k, "v", at)
		keys = append(keys, k)
		c.Advance(time.Second)
	}
	return keys
}

func present(t *testing.T, s *kv.Store, keys []string) []string {
	t.Helper()
	var out []string
	for _, k := range keys {
		if exists(t, s, k) {
			out = append(out, k)
		}
	}
	return out
}

func TestEvictionPolicies(t *testing.T) {
	cost := stringCost("k00", "v")
	t.Run("allkeys-lru evicts the least recently used", func(t *testing.T) {
		s, _, c, _, _ := newStore(t)
		keys := fill(t, s, c, 10, 0)
		do(t, s, func(tx *kv.Tx) error { _, _, err := tx.Get([]byte("k00")); return err }) // k00 is now the newest
		limitTo(s, kv.PolicyAllKeysLRU, 7*cost)
		if makeRoom(t, s) {
			t.Fatal("OOM")
		}
		if got, want := present(t, s, keys), []string{"k00", "k04", "k05", "k06", "k07", "k08", "k09"}; !slices.Equal(got, want) {
			t.Fatalf("left %v, want %v", got, want)
		}
	})
	t.Run("allkeys-lfu evicts the least frequently used", func(t *testing.T) {
		s, _, c, _, _ := newStore(t)
		keys := fill(t, s, c, 10, 0)
		hot := []string{"k01", "k03", "k05", "k07", "k09"}
		for range 20 {
			do(t, s, func(tx *kv.Tx) error { _, err := tx.Touch(bs(hot...)); return err })
		}
		limitTo(s, kv.PolicyAllKeysLFU, 5*cost)
		makeRoom(t, s)
		if got := present(t, s, keys); !slices.Equal(got, hot) {
			t.Fatalf("left %v, want the hot keys %v", got, hot)
		}
	})
	t.Run("allkeys-random evicts until under the limit", func(t *testing.T) {
		s, _, c, _, _ := newStore(t)
		keys := fill(t, s, c, 20, 0)
		limitTo(s, kv.PolicyAllKeysRandom, 12*cost)
		makeRoom(t, s)
		if got := len(present(t, s, keys)); got != 12 {
			t.Fatalf("%d keys left, want 12", got)
		}
	})
	for _, p := range []kv.Policy{kv.PolicyVolatileLRU, kv.PolicyVolatileLFU, kv.PolicyVolatileRandom, kv.PolicyVolatileTTL} {
		t.Run(p.String()+" evicts only keys with an expiry, then refuses", func(t *testing.T) {
			s, _, c, _, _ := newStore(t)
			keys := fill(t, s, c, 10, 2) // k00, k02, ... are volatile
			limitTo(s, p, 7*cost)
			if makeRoom(t, s) {
				t.Fatal("OOM with volatile keys left")
			}
			left := present(t, s, keys)
			if len(left) != 7 {
				t.Fatalf("left %v, want 7 keys", left)
			}
			for _, k := range []string{"k01", "k03", "k05", "k07", "k09"} {
				if !slices.Contains(left, k) {
					t.Fatalf("%s evicted without an expiry (left %v)", k, left)
				}
			}
			if p == kv.PolicyVolatileTTL {
				// The earliest expiries go first.
				if want := []string{"k01", "k03", "k05", "k06", "k07", "k08", "k09"}; !slices.Equal(left, want) {
					t.Fatalf("left %v, want %v", left, want)
				}
			}
			limitTo(s, p, 2*cost)
			if !makeRoom(t, s) {
				t.Fatal("no OOM once only keys without an expiry are left")
			}
			if got := present(t, s, keys); !slices.Equal(got, []string{"k01", "k03", "k05", "k07", "k09"}) {
				t.Fatalf("left %v", got)
			}
		})
	}
	t.Run("noeviction refuses and deletes nothing", func(t *testing.T) {
		s, _, c, _, _ := newStore(t)
		keys := fill(t, s, c, 5, 1)
		limitTo(s, kv.PolicyNoEviction, cost)
		if !makeRoom(t, s) {
			t.Fatal("no OOM")
		}
		if got := present(t, s, keys); len(got) != 5 {
			t.Fatalf("left %v", got)
		}
		limitTo(s, kv.PolicyNoEviction, 5*cost)
		if makeRoom(t, s) {
			t.Fatal("OOM at the limit exactly")
		}
	})
}

func TestEvictionEventsAndStats(t *testing.T) {
	s, _, c, rec, _ := newStore(t)
	s.SetNotifyMask(kv.ClassEvicted)
	fill(t, s, c, 3, 1)
	rec.names()
	limitTo(s, kv.PolicyVolatileTTL, 2*stringCost("k00", "v"))
	makeRoom(t, s)
	if got := rec.names(); !slices.Equal(got, []string{"evicted:k00"}) {
		t.Fatalf("events %v", got)
	}
	if st := s.Stats(); st.EvictedKeys != 1 || st.ExpiredKeys != 0 {
		t.Fatalf("stats %+v", st)
	}
	s.ResetStats()
	if n := s.Stats().EvictedKeys; n != 0 {
		t.Fatalf("after reset: %d", n)
	}
}

func TestEvictionWorkPerCommandIsBounded(t *testing.T) {
	s, _, c, _, _ := newStore(t)
	keys := fill(t, s, c, 100, 1)
	cost := stringCost("k00", "v")
	s.SetEviction(kv.Eviction{MaxMemory: kv.StartupMemory + 10*cost, Policy: kv.PolicyVolatileTTL, Samples: 5, Tenacity: 1, LFULogFactor: 10, LFUDecayTime: 1})
	if makeRoom(t, s) {
		t.Fatal("OOM")
	}
	if got := len(present(t, s, keys)); got != 100-16 {
		t.Fatalf("one command at tenacity 1 left %d keys, want %d", got, 100-16)
	}
	n, err := s.EvictPass(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if got := len(present(t, s, keys)); got != 10 || n != 74 {
		t.Fatalf("the background pass evicted %d and left %d keys, want 74 and 10", n, got)
	}
}

func TestLFUParameters(t *testing.T) {
	s, _, c, _, _ := newStore(t)
	set(t, s, "k", "v", 0)
	if f := access(t, s, "k").Freq; f != 5 {
		t.Fatalf("a new key's counter %d, want 5", f)
	}
	do(t, s, func(tx *kv.Tx) error { _, err := tx.Touch(bs("k")); return err }) // 5 -> 6 with probability 1
	if f := access(t, s, "k").Freq; f != 6 {
		t.Fatalf("after one access %d, want 6", f)
	}
	s.SetEviction(kv.Eviction{Policy: kv.PolicyAllKeysLFU, LFULogFactor: 10, LFUDecayTime: 2})
	c.Advance(4 * time.Minute)
	if f := access(t, s, "k").Freq; f != 4 {
		t.Fatalf("after 4 minutes at a decay time of 2: %d, want 4", f)
	}
	s.SetEviction(kv.Eviction{Policy: kv.PolicyAllKeysLFU, LFULogFactor: 10, LFUDecayTime: 0})
	c.Advance(time.Hour)
	if f := access(t, s, "k").Freq; f != 6 {
		t.Fatalf("no decay at a decay time of 0: %d, want 6", f)
	}
	// With a log factor of 0 every access counts one.
	s.SetEviction(kv.Eviction{Policy: kv.PolicyAllKeysLFU, LFULogFactor: 0, LFUDecayTime: 0})
	for range 10 {
		do(t, s, func(tx *kv.Tx) error { _, err := tx.Touch(bs("k")); return err })
	}
	if f := access(t, s, "k").Freq; f != 16 {
		t.Fatalf("ten accesses at log factor 0: %d, want 16", f)
	}
}

func TestParsePolicy(t *testing.T) {
	for _, name := range []string{"noeviction", "allkeys-lru", "allkeys-lfu", "allkeys-random", "volatile-lru", "volatile-lfu", "volatile-random", "volatile-ttl"} {
		p, ok := kv.ParsePolicy(name)
		if !ok || p.String() != name {
			t.Errorf("%s: %v %v", name, p, ok)
		}
	}
	if _, ok := kv.ParsePolicy("ALLKEYS-LRU"); !ok {
		t.Error("case matters")
	}
	if _, ok := kv.ParsePolicy("lru"); ok {
		t.Error("lru parsed")
	}
}

// Ensure that one command stops evicting once its time is up (checked
// every 16 keys): here every reading of the clock takes a millisecond,
// past the 500 µs of tenacity 10, so it stops after 16 keys of its 160.
func TestEvictionTimeLimit(t *testing.T) {
	s, st, c, _, _ := newStore(t)
	keys := fill(t, s, c, 100, 1)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	slow, err := kv.Open(t.Context(), kv.Options{Store: st, Now: func() time.Time {
		c.Advance(time.Millisecond)
		return c.Now()
	}})
	if err != nil {
		t.Fatal(err)
	}
	slow.SetEviction(kv.Eviction{MaxMemory: kv.StartupMemory, Policy: kv.PolicyVolatileTTL, Samples: 5, Tenacity: 10, LFULogFactor: 10, LFUDecayTime: 1})
	if makeRoom(t, slow) {
		t.Fatal("OOM")
	}
	if got := len(present(t, slow, keys)); got != 100-16 {
		t.Fatalf("%d keys left, want %d", got, 100-16)
	}
}
