package replica

import (
	"slices"
	"sync"

	"github.com/hashicorp/raft"
)

// A member's view of its set is what Status reports of roles and
// membership: whether this member is primary and in which term, the
// leader it knows, the configuration's index, and each member's
// addresses, vote, role, health and freeze. Applied indexes and the time a
// member was last heard from are not part of it. Node.Changes counts the
// changes of the view since the node opened and hands out a channel closed
// at the next change, so that a caller waits for the view to move on
// instead of polling it.
//
// The view is compared again after every event that can change it: raft's
// leader and peer observations, this member gaining or losing the primary
// role, a freeze, and every poll of the other members (which is also when
// a member's health can change). A change is counted only once it is
// visible through Status, so a caller that reads the count before Status
// never pairs an old description with a new count.

// memberView is one member as the view holds it.
type memberView struct {
	info                            MemberInfo
	voter, primary, healthy, frozen bool
}

// setView is the view of the set that Changes follows.
type setView struct {
	isPrimary   bool
	primaryTerm uint64
	leader      string
	configIndex uint64
	members     []memberView
}

func (a setView) equal(b setView) bool {
	return a.isPrimary == b.isPrimary && a.primaryTerm == b.primaryTerm && a.leader == b.leader &&
		a.configIndex == b.configIndex && slices.Equal(a.members, b.members)
}

func viewOf(st Status) setView {
	v := setView{isPrimary: st.IsPrimary, primaryTerm: st.PrimaryTerm, leader: st.Leader, configIndex: st.ConfigIndex}
	for _, m := range st.Members {
		v.members = append(v.members, memberView{
			info:  m.MemberInfo,
			voter: m.Voter, primary: m.Primary, healthy: m.Healthy, frozen: m.Frozen,
		})
	}
	return v
}

// viewChanges counts the changes of the view.
type viewChanges struct {
	mu    sync.Mutex
	count uint64
	last  setView
	next  chan struct{} // closed at the next change
}

// Changes returns how many times this member's view of its set has
// changed since the node opened, and a channel closed at the next change.
func (n *Node) Changes() (count uint64, changed <-chan struct{}) {
	c := &n.changes
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.next == nil {
		c.next = make(chan struct{})
	}
	return c.count, c.next
}

// noteView compares the view with the last one and counts a change.
func (n *Node) noteView() {
	if !n.started.Load() {
		return
	}
	v := viewOf(n.Status())
	c := &n.changes
	c.mu.Lock()
	defer c.mu.Unlock()
	if v.equal(c.last) {
		return
	}
	c.last = v
	c.count++
	if c.next != nil {
		close(c.next)
	}
	c.next = make(chan struct{})
}

// observeView compares the view after each of raft's leader and peer
// observations, until the node stops.
func (n *Node) observeView() {
	defer n.done.Done()
	ch := make(chan raft.Observation, 16)
	obs := raft.NewObserver(ch, false, func(o *raft.Observation) bool {
		switch o.Data.(type) {
		case raft.LeaderObservation, raft.PeerObservation, raft.RaftState:
			return true
		}
		return false
	})
	n.raft.RegisterObserver(obs)
	defer n.raft.DeregisterObserver(obs)
	n.noteView()
	for {
		select {
		case <-n.stop:
			return
		case <-ch:
			n.noteView()
		}
	}
}
