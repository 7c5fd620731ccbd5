package replica

import (
	"context"
	"errors"
	"testing"
	"time"
)

// Ensure that a frozen member never serves as primary: a primary stepping
// down hands its role only to a caught-up member that is not frozen (and
// fails with ErrNoCaughtUp when there is none), stays frozen itself for
// the step-down period, and a frozen member that wins raft's leadership
// hands it to the unfrozen one.
func TestFreezeAndStepDown(t *testing.T) {
	c := newCluster(t, 3)
	p := c.primary(t)
	f1, f2 := (p+1)%3, (p+2)%3
	if _, err := c.nodes[p].Freeze(time.Minute); !errors.Is(err, ErrNotFollower) {
		t.Fatalf("freeze of the primary: %v", err)
	}
	if err := commit(c.stores[p], "\x05a", "1"); err != nil {
		t.Fatal(err)
	}
	for _, f := range []int{f1, f2} {
		if unfrozen, err := c.nodes[f].Freeze(time.Minute); err != nil || unfrozen {
			t.Fatalf("freeze of member %d: %v %v", f, unfrozen, err)
		}
	}
	ctx := context.Background()
	if err := c.nodes[p].StepDownFor(ctx, time.Minute, 200*time.Millisecond, false); !errors.Is(err, ErrNoCaughtUp) {
		t.Fatalf("step down with every other member frozen: %v", err)
	}
	if !c.nodes[p].IsPrimary() || c.nodes[p].Frozen() {
		t.Fatal("a refused step down changed the primary")
	}
	if unfrozen, err := c.nodes[f1].Freeze(0); err != nil || !unfrozen {
		t.Fatalf("unfreeze: %v %v", unfrozen, err)
	}
	if err := c.nodes[p].StepDownFor(ctx, time.Minute, 5*time.Second, false); err != nil {
		t.Fatalf("step down: %v", err)
	}
	if !c.nodes[p].Frozen() {
		t.Fatal("the stepped-down primary is not frozen")
	}
	// The old primary closes its writes once raft tells it it lost the
	// leadership, shortly after the transfer.
	waitFor(t, 5*time.Second, "the stepped-down primary to stop taking writes", func() bool { return !c.nodes[p].IsPrimary() })
	if got := c.primary(t); got != f1 {
		t.Fatalf("primary after step down is %d, want the only unfrozen member %d", got, f1)
	}

	// f1 goes; p and f2 remain, p frozen: whichever raft elects, only f2
	// becomes primary.
	if _, err := c.nodes[f2].Freeze(0); err != nil {
		t.Fatal(err)
	}
	c.nodes[f1].Close()
	c.nodes[f1] = c.nodes[f2] // primary() must not wait on the closed member
	if got := c.primary(t); c.nodes[got] != c.nodes[f2] {
		t.Fatalf("primary after the loss of %d is %d, want %d", f1, got, f2)
	}
	if c.nodes[p].IsPrimary() {
		t.Fatal("the frozen member became primary")
	}
	if err := commit(c.stores[f2], "\x05b", "2"); err != nil {
		t.Fatal(err)
	}
}
