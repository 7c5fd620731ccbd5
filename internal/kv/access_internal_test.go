package kv

import (
	"strconv"
	"testing"
)

// TestAccessClockGenerations checks the memory bound: with two generations
// of 4 keys, a key dropped with the older generation reports its idle time
// from the start of the generation that followed it, a lower bound, and a
// key accessed since is exact.
func TestAccessClockGenerations(t *testing.T) {
	var c accessClock
	c.max = 4
	sec := int64(1_000_000)
	ms := func() int64 { return sec * 1000 }
	touch := func(k string) { c.touch(0, []byte(k), ms(), true) }
	idle := func(k string) int64 { return c.idle(0, []byte(k), ms()) }
	touch("a") // generation 1 starts at 1,000,000
	sec += 10
	touch("b")
	touch("c")
	touch("d")
	sec += 10  // 1,000,020
	touch("e") // generation 1 is full: generation 2 starts here
	if got := idle("a"); got != 20 {
		t.Fatalf("a in the older generation: idle %d, want 20", got)
	}
	sec += 10 // 1,000,030
	for _, k := range []string{"f", "g"} {
		touch(k)
	}
	touch("b") // b moves to generation 2, which is now full
	sec += 10  // 1,000,040
	touch("i") // generation 1 is dropped: floor = 1,000,020
	if len(c.cur)+len(c.old) > 2*c.max {
		t.Fatalf("%d entries kept", len(c.cur)+len(c.old))
	}
	if got := idle("a"); got != 20 {
		t.Fatalf("dropped a: idle %d, want the lower bound 20", got)
	}
	if got := idle("b"); got != 10 {
		t.Fatalf("b, accessed in generation 2: idle %d, want 10", got)
	}
	if got := idle("e"); got != 20 {
		t.Fatalf("e: idle %d, want 20", got)
	}
	if got := idle("never"); got != 20 {
		t.Fatalf("a key never accessed: idle %d, want the lower bound 20", got)
	}
	// Another database's key of the same name is another key.
	if got := c.idle(1, []byte("i"), ms()); got != 20 {
		t.Fatalf("db 1: idle %d", got)
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
		c.touch(0, keys[i&(len(keys)-1)], now+int64(i), true)
	}
}
