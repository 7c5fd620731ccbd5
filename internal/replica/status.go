package replica

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hashicorp/raft"
)

// Member is one member of the set as this member sees it.
type Member struct {
	MemberState
	Self    bool
	Primary bool // the member is raft's leader
	Voter   bool
	// Healthy reports whether the member answered recently (always true
	// for Self).
	Healthy bool
	// LastSeen is when the member last answered; now for Self.
	LastSeen time.Time
}

// Status is the replica set as this member sees it.
type Status struct {
	SetName string
	Me      MemberState
	// IsPrimary reports whether this member accepts writes.
	IsPrimary bool
	// PrimaryTerm is the raft term in which this member became primary (0
	// when it is not).
	PrimaryTerm uint64
	// Leader is raft's leader's raft address, "" when none is known.
	Leader string
	// ConfigIndex is the raft index of the current membership, which
	// grows with every change of membership (MongoDB's setVersion).
	ConfigIndex uint64
	Members     []Member
}

// healthyWithin is how recently a member must have answered to count as
// healthy.
const healthyWithin = 4 * peerRefresh

// Status describes the set now.
func (n *Node) Status() Status {
	now := time.Now()
	st := Status{SetName: n.cfg.SetName, Me: n.selfState(), IsPrimary: n.writable.Load()}
	if st.IsPrimary {
		st.PrimaryTerm = n.primaryTerm.Load()
	}
	leader, _ := n.raft.LeaderWithID()
	st.Leader = string(leader)
	f := n.raft.GetConfiguration()
	if f.Error() == nil {
		st.ConfigIndex = f.Index()
		for _, srv := range f.Configuration().Servers {
			addr := string(srv.Address)
			m := Member{Voter: srv.Suffrage == raft.Voter, Primary: addr == st.Leader}
			if addr == n.cfg.RaftAddr {
				m.MemberState, m.Self, m.Healthy, m.LastSeen = st.Me, true, true, now
			} else {
				seen := n.peers.get(addr)
				m.MemberState = seen.state
				m.RaftAddr = addr
				m.LastSeen = seen.at
				m.Healthy = !seen.at.IsZero() && seen.err == nil && now.Sub(seen.at) < healthyWithin
			}
			st.Members = append(st.Members, m)
		}
	}
	return st
}

// AppliedIndex returns the index of the last entry applied to this
// member's store, whose effects its readers see. Raft's own count runs
// ahead of the store while entries are being applied, so it is taken only
// where the entries past the state machine's index are ones raft never
// hands to a state machine (the no-op a new leader appends, barriers) or
// ones already compacted into a snapshot this member holds; and wholly
// when the state machine does not know its index (after a restore from a
// snapshot that did not name it).
func (n *Node) AppliedIndex() uint64 {
	raftIndex := n.raft.AppliedIndex()
	applied, ok := n.fsm.Applied()
	if !ok {
		return raftIndex
	}
	applied = max(applied, n.passedTo.Load())
	for applied < raftIndex && !n.changesStore(applied+1) {
		applied++
	}
	n.passedTo.Store(applied)
	return applied
}

// changesStore reports whether the log entry at index is one the state
// machine applies to the store: a command or a configuration. An entry no
// longer in the log was compacted into a snapshot, which the store holds.
// Once the member is closed, or when the log cannot be read, every entry
// counts as one that changes it.
func (n *Node) changesStore(index uint64) bool {
	n.logsMu.RLock()
	defer n.logsMu.RUnlock()
	if n.logs == nil {
		return true
	}
	var l raft.Log
	if err := n.logs.GetLog(index, &l); err != nil {
		return !errors.Is(err, raft.ErrLogNotFound)
	}
	return l.Type == raft.LogCommand || l.Type == raft.LogConfiguration
}

// WaitReplicas waits until at least want other members have applied every
// entry up to index, or ctx ends, and returns how many have.
func (n *Node) WaitReplicas(ctx context.Context, index uint64, want int) int {
	for {
		got := 0
		for _, srv := range n.servers() {
			addr := string(srv.Address)
			if addr == n.cfg.RaftAddr {
				continue
			}
			st, err := n.cfg.StateOf(addr)
			if err == nil && st.AppliedIndex >= index {
				got++
			}
		}
		if got >= want {
			return got
		}
		select {
		case <-ctx.Done():
			return got
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// StepDown makes this member stop being primary: raft transfers the
// leadership to another member.
func (n *Node) StepDown() error {
	if !n.writable.Load() {
		return ErrNotPrimary
	}
	if err := n.raft.LeadershipTransfer().Error(); err != nil {
		return fmt.Errorf("replica: step down: %w", err)
	}
	return nil
}

// AddMember adds a voting member at raftAddr.
func (n *Node) AddMember(raftAddr string) error {
	if !n.writable.Load() {
		return ErrNotPrimary
	}
	err := n.raft.AddVoter(raft.ServerID(raftAddr), raft.ServerAddress(raftAddr), 0, n.cfg.ApplyTimeout).Error()
	if err != nil {
		return fmt.Errorf("replica: add member %s: %w", raftAddr, err)
	}
	return nil
}

// RemoveMember removes the member at raftAddr.
func (n *Node) RemoveMember(raftAddr string) error {
	if !n.writable.Load() {
		return ErrNotPrimary
	}
	err := n.raft.RemoveServer(raft.ServerID(raftAddr), 0, n.cfg.ApplyTimeout).Error()
	if err != nil {
		return fmt.Errorf("replica: remove member %s: %w", raftAddr, err)
	}
	return nil
}

// WaitPrimary waits until some member is primary as this member sees it,
// or ctx ends.
func (n *Node) WaitPrimary(ctx context.Context) error {
	for {
		if leader, _ := n.raft.LeaderWithID(); leader != "" {
			return nil
		}
		select {
		case <-ctx.Done():
			return errors.Join(errors.New("replica: no primary elected"), ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// Snapshot makes raft take a snapshot now (tests, and catching up members).
func (n *Node) Snapshot() error {
	if err := n.raft.Snapshot().Error(); err != nil {
		return fmt.Errorf("replica: snapshot: %w", err)
	}
	return nil
}

// Voters returns how many voting members the set's configuration has.
func (n *Node) Voters() int {
	v := 0
	for _, srv := range n.servers() {
		if srv.Suffrage == raft.Voter {
			v++
		}
	}
	return v
}

// VerifyLeader confirms with a majority of the set that this member is
// still its leader, so that a read served next is not a stale one of a
// deposed primary.
func (n *Node) VerifyLeader() error {
	if !n.writable.Load() {
		return ErrNotPrimary
	}
	if err := n.raft.VerifyLeader().Error(); err != nil {
		return fmt.Errorf("replica: verify leadership: %w: %w", ErrNotPrimary, err)
	}
	return nil
}
