package kv

import (
	"strconv"
	"testing"
)

// TestAccessClockFullSet checks the approximation of the fixed table: in a
// full set the least recently accessed key gives its record up, and then
// reports its idle time from the oldest record left, a lower bound, while
// the keys that kept their records are exact.
func TestAccessClockFullSet(t *testing.T) {
	var c accessClock
	sec := int64(1_000_000)
	ms := func() int64 { return sec * 1000 }
	c.init(sec)
	// accessWays+1 keys of one set, found among some hundred thousand names.
	bySet := map[*accessRecord][]string{}
	var keys []string
	for i := 0; keys == nil; i++ {
		k := "k" + strconv.Itoa(i)
		set, _, _, _ := c.lookup(0, []byte(k))
		bySet[&set[0]] = append(bySet[&set[0]], k)
		if len(bySet[&set[0]]) == accessWays+1 {
			keys = bySet[&set[0]]
		}
	}
	idle := func(k string) int64 { return c.idle(0, []byte(k), ms()) }
	sec += 5
	if got := idle(keys[0]); got != 5 {
		t.Fatalf("never accessed: idle %d, want 5 (since the start)", got)
	}
	for _, k := range keys[:accessWays] { // k0 at +5 s, k1 at +6 s, ...
		c.touch(0, []byte(k), ms(), true, defaultLFU)
		sec++
	}
	c.touch(0, []byte(keys[1]), ms(), true, defaultLFU) // k1 is no longer the oldest but one
	sec += 10
	c.touch(0, []byte(keys[accessWays]), ms(), true, defaultLFU) // the set is full: k0 goes
	sec += 10
	// Now +33 s; k2 (at +7 s) holds the oldest record left.
	for i, want := range map[int]int64{0: 26, 1: 20, 2: 26, accessWays - 1: 21, accessWays: 10} {
		if got := idle(keys[i]); got != want {
			t.Errorf("key %d: idle %d, want %d", i, got, want)
		}
	}
	// Its counter restarts from a new key's, decayed from that time.
	if got, want := c.freq(0, []byte(keys[0]), ms(), defaultLFU), lfuDecay(newAccessRecord(0, sec-26, lfuInitVal), sec, defaultLFU); got != want {
		t.Fatalf("freq %d, want %d", got, want)
	}
	// The same name in another database is another key.
	c.touch(3, []byte(keys[2]), ms(), true, defaultLFU)
	if got := idle(keys[2]); got != 26 {
		t.Fatalf("db 0 after a touch in db 3: idle %d", got)
	}
}

// BenchmarkAccessTouch is the cost the access clock adds to every lookup.
func BenchmarkAccessTouch(b *testing.B) {
	var c accessClock
	keys := make([][]byte, 1<<16)
	for i := range keys {
		keys[i] = strconv.AppendInt([]byte("session:"), int64(i), 10)
	}
	now := int64(1_700_000_000_000)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		c.touch(0, keys[i&(len(keys)-1)], now+int64(i), true, defaultLFU)
	}
}

// defaultLFU is Redis's default lfu-log-factor and lfu-decay-time.
var defaultLFU = lfuParams{logFactor: 10, decayMin: 1}
