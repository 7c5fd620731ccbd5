package events

import (
	"strconv"
	"testing"
)

// TestRecentInserts checks that the set remembers the last insert of each
// document, lists a collection's documents, and forgets by content id,
// across the compactions of its order.
func TestRecentInserts(t *testing.T) {
	r := newRecentInserts()
	const n = 3 * compactAfter
	for i := range n {
		id := []byte("id" + strconv.Itoa(i))
		if !r.add(uint64(1+i%2), id, uint64(10+i)) {
			t.Fatalf("add %d refused", i)
		}
	}
	// A document inserted again (after a delete) is known by its last insert.
	if !r.add(1, []byte("id0"), uint64(10+n)) {
		t.Fatal("second insert refused")
	}
	if x, ok := r.get(1, []byte("id0")); !ok || x != uint64(10+n) {
		t.Errorf("get id0 = %d, %v; want %d", x, ok, 10+n)
	}
	if _, ok := r.get(2, []byte("id0")); ok {
		t.Error("id0 found in the other collection")
	}
	if got := len(r.inColl(2)); got != n/2 {
		t.Errorf("inColl(2) has %d documents, want %d", got, n/2)
	}
	cut := uint64(10 + 2*compactAfter)
	r.forget(cut)
	for i := range n {
		id := []byte("id" + strconv.Itoa(i))
		x, ok := r.get(uint64(1+i%2), id)
		want := uint64(10+i) >= cut || i == 0
		if ok != want {
			t.Errorf("after forget, get %s = %d, %v; want found: %v", id, x, ok, want)
		}
	}
	c1 := r.inColl(1)
	if len(c1) != compactAfter/2+1 {
		t.Errorf("inColl(1) after forget has %d documents, want %d", len(c1), compactAfter/2+1)
	}
	if x := c1["id0"]; x != uint64(10+n) {
		t.Errorf("inColl(1)[id0] = %d, want %d", x, 10+n)
	}
	want := "id" + strconv.Itoa(n-1)
	if _, ok := c1[want]; !ok && (n-1)%2 == 0 {
		t.Errorf("inColl(1) misses %s", want)
	}
	r.forget(uint64(20 + n))
	if len(r.last) != 0 || len(r.inColl(1)) != 0 {
		t.Errorf("after forgetting all: %d remembered", len(r.last))
	}
	if !r.add(1, []byte("again"), uint64(30+n)) {
		t.Fatal("add after forgetting all refused")
	}
	if c := r.inColl(1); c["again"] != uint64(30+n) || len(c) != 1 {
		t.Errorf("inColl after forgetting all = %v", c)
	}
}
