package replica

import (
	"context"
	"testing"
	"time"
)

// Ensure that a member's view changes are counted and announced: each
// member counts the election of the first primary, a waiter on the
// channel of the count it holds is woken by a step-down, and the count
// then keeps still while nothing changes.
func TestChangesFollowRolesAndMembership(t *testing.T) {
	c := newCluster(t, 3)
	p := c.primary(t)
	f := (p + 1) % 3
	waitFor(t, 5*time.Second, "every member to count the first election", func() bool {
		for _, n := range c.nodes {
			if count, _ := n.Changes(); count == 0 {
				return false
			}
		}
		return true
	})
	before, changed := c.nodes[f].Changes()
	select {
	case <-changed:
		// The member's view moved on again (a peer's poll or health):
		// take the next one.
		before, changed = c.nodes[f].Changes()
	default:
	}
	if err := c.nodes[p].StepDownFor(context.Background(), time.Minute, 5*time.Second, false); err != nil {
		t.Fatalf("step down: %v", err)
	}
	select {
	case <-changed:
	case <-time.After(10 * time.Second):
		t.Fatal("a follower's waiter was not woken by the step-down")
	}
	after, _ := c.nodes[f].Changes()
	if after <= before {
		t.Fatalf("count %d after the step-down, %d before", after, before)
	}
	waitFor(t, 5*time.Second, "the old primary to count losing its role", func() bool {
		count, _ := c.nodes[p].Changes()
		return count > 1 && !c.nodes[p].IsPrimary()
	})
}
