package replica

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/hashicorp/raft"
)

// A frozen member does not serve as primary until its freeze ends
// (MongoDB's replSetFreeze, and the stepDownSecs of replSetStepDown).
// hashicorp/raft has no way to keep a member from campaigning, so the
// freeze acts on what an election gives: a frozen member still votes and
// may still win raft's leadership, but it then hands the leadership to
// another member at once, without ever opening writes; while no other
// member can take it, it keeps trying every freezeRetry and stays
// closed to writes. It reports itself frozen in its member state, so a
// primary stepping down never hands its role to a frozen member.

// freezeRetry is how often a frozen member that holds raft's leadership
// tries again to hand it over.
const freezeRetry = 100 * time.Millisecond

// catchUpPoll is how often a primary stepping down looks for a caught-up
// member.
const catchUpPoll = 10 * time.Millisecond

// ErrNotFollower is the error of a freeze asked of a member that is
// primary or running for election.
var ErrNotFollower = errors.New("replica: the member is primary or running for election")

// ErrNoCaughtUp is the error of a step-down that found no electable member
// caught up with the primary within its catch-up period.
var ErrNoCaughtUp = errors.New("replica: no electable member caught up")

// freeze is a member's freeze: until when it refuses the primary role.
type freeze struct {
	mu    sync.Mutex
	until time.Time
	// changed is closed, and replaced, whenever until is set, so that a
	// waiting member looks at it again.
	changed chan struct{}
}

func (f *freeze) get() (time.Time, chan struct{}) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.changed == nil {
		f.changed = make(chan struct{})
	}
	return f.until, f.changed
}

func (f *freeze) set(until time.Time) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.until = until
	if f.changed != nil {
		close(f.changed)
	}
	f.changed = make(chan struct{})
}

// Frozen reports whether this member refuses the primary role now.
func (n *Node) Frozen() bool {
	until, _ := n.frz.get()
	return time.Now().Before(until)
}

// Freeze keeps this member, a follower, from serving as primary for d
// (extending a longer freeze never shortens it); d <= 0 lifts the freeze
// (unfrozen is then true). The primary, or a member running for election,
// gets ErrNotFollower.
func (n *Node) Freeze(d time.Duration) (unfrozen bool, err error) {
	if s := n.raft.State(); s != raft.Follower {
		return false, fmt.Errorf("%w (%s)", ErrNotFollower, s)
	}
	if d <= 0 {
		n.frz.set(time.Now())
		n.noteView()
		return true, nil
	}
	n.freezeFor(d)
	n.noteView()
	return false, nil
}

// freezeFor freezes the member for d unless it is frozen longer already.
func (n *Node) freezeFor(d time.Duration) {
	until := time.Now().Add(d)
	if cur, _ := n.frz.get(); cur.After(until) {
		return
	}
	n.frz.set(until)
}

// refuseWhileFrozen is called when this member has won raft's
// leadership: while the member is frozen and still leader, it hands the
// leadership over, retrying. It returns true when the member lost the
// leadership, false when the freeze ended while it still leads (the
// member then becomes primary as any leader does).
func (n *Node) refuseWhileFrozen() (lost bool) {
	for {
		until, changed := n.frz.get()
		if !time.Now().Before(until) {
			return n.raft.State() != raft.Leader
		}
		if n.raft.State() != raft.Leader {
			return true
		}
		if err := awaitFuture(n.raft.LeadershipTransfer(), n.stop); err == nil {
			return true
		}
		select {
		case <-n.stop:
			return true
		case <-changed:
		case <-time.After(min(freezeRetry, time.Until(until))):
		}
	}
}

// StepDownFor makes this member, the primary, hand its role to another
// member and stay frozen for freezeFor (MongoDB's replSetStepDown). It
// first waits up to catchUp for a voting member that is not frozen to
// have applied every entry of this member's log, and transfers the
// leadership to it; when none has and force is false it stays primary and
// returns ErrNoCaughtUp; with force it hands the role to whichever member
// raft finds. Writes are refused from the moment the transfer starts.
func (n *Node) StepDownFor(ctx context.Context, freezeFor, catchUp time.Duration, force bool) error {
	if !n.writable.Load() {
		return ErrNotPrimary
	}
	target, ok := n.caughtUpMember(ctx, catchUp)
	if !ok && !force {
		return ErrNoCaughtUp
	}
	n.freezeFor(freezeFor)
	var f raft.Future
	if ok {
		f = n.raft.LeadershipTransferToServer(raft.ServerID(target), raft.ServerAddress(target))
	} else {
		f = n.raft.LeadershipTransfer()
	}
	if err := f.Error(); err != nil {
		n.frz.set(time.Now())
		return fmt.Errorf("replica: step down: %w", err)
	}
	return nil
}

// caughtUpMember waits up to d for a voting member other than this one,
// not frozen, to have applied this member's whole log, and returns its
// raft address.
func (n *Node) caughtUpMember(ctx context.Context, d time.Duration) (string, bool) {
	deadline := time.Now().Add(d)
	for {
		last := n.raft.LastIndex()
		for _, srv := range n.servers() {
			addr := string(srv.Address)
			if addr == n.cfg.RaftAddr || srv.Suffrage != raft.Voter {
				continue
			}
			st, err := n.cfg.StateOf(addr)
			if err == nil && !st.Frozen && st.AppliedIndex >= last {
				return addr, true
			}
		}
		if !time.Now().Before(deadline) {
			return "", false
		}
		select {
		case <-ctx.Done():
			return "", false
		case <-time.After(catchUpPoll):
		}
	}
}
