package resp

import (
	"testing"
	"time"
)

// TestBlockWaitersInArrivalOrder: the waiters of a key are served in the
// order their requests arrived, whichever registered first.
func TestBlockWaitersInArrivalOrder(t *testing.T) {
	k := blockKey{db: 7, key: "arrival-order"}
	t0 := time.Now()
	mk := func(d time.Duration) *blockWaiter {
		return &blockWaiter{keys: []blockKey{k}, arrived: t0.Add(d)}
	}
	second, first, third, alsoThird := mk(2*time.Millisecond), mk(time.Millisecond), mk(3*time.Millisecond), mk(3*time.Millisecond)
	for _, w := range []*blockWaiter{second, third, first, alsoThird} {
		w.register()
		defer w.unregister()
	}
	blocking.mu.Lock()
	got := append([]*blockWaiter(nil), blocking.m[k]...)
	blocking.mu.Unlock()
	want := []*blockWaiter{first, second, third, alsoThird}
	if len(got) != len(want) {
		t.Fatalf("%d waiters, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("waiter %d arrived at +%v, want the one at +%v (equal arrivals keep their registration order)",
				i, got[i].arrived.Sub(t0), want[i].arrived.Sub(t0))
		}
	}
}
