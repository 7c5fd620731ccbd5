package replica

import (
	"fmt"
	"sync"

	"github.com/hashicorp/raft"

	"github.com/mayfly/mayfly/internal/storage"
)

// Group commit of proposals. Every model's commit on the primary becomes a
// proposal (Node.Propose, Node.Replicate), and each raft entry costs the
// members a log write, a share of an AppendEntries and a state machine
// apply, however small its batch. So the node keeps few entries in flight
// and joins the batches proposed meanwhile into one entry:
//
//   - A proposal made while fewer than maxProposalsInFlight entries are in
//     flight becomes an entry at once, alone.
//   - Otherwise its batch is appended to the open group, the entry that
//     goes next, together with every batch proposed after it until then.
//     A group past maxGroupBytes is closed and a new one opened after it.
//   - When an entry in flight is committed and applied, the oldest group
//     waiting becomes an entry.
//
// Groups become entries in the order they were opened and batches join
// them in call order, so batches are still applied in the order they were
// proposed, and waiting for the last proposal still waits for every one
// before it. Each proposer waits for its group's entry and gets its result:
// a group is one storage batch, applied as a whole or not at all.
type proposer struct {
	mu       sync.Mutex
	inFlight int
	// waiting are the groups not yet handed to raft, oldest first; only
	// the last one takes new batches.
	waiting []*proposalGroup
	// apply hands an entry to raft; Node.raft.Apply, or a test's.
	apply func(data []byte) raft.ApplyFuture
	// term returns the primary term while this member accepts writes, and
	// false when it does not.
	term   func() (uint64, bool)
	origin [originLen]byte
	// stop, once closed, ends the waits for entries raft has not answered:
	// the node is shutting down.
	stop <-chan struct{}
}

// maxProposalsInFlight is how many entries the primary has in raft at
// once before later batches wait for one to finish, in a group.
const maxProposalsInFlight = 2

// maxGroupBytes closes a group to new batches.
const maxGroupBytes = 4 << 20

// proposalGroup is the batches of one future raft entry.
type proposalGroup struct {
	repr []byte // the joined batch representations
	// term is the primary term the batches were made in: a group is
	// handed to raft only in that term, never to a later one of this
	// member, whose models were rebuilt meanwhile.
	term uint64
	done chan struct{}
	err  error // valid once done is closed
}

func (g *proposalGroup) wait() error {
	<-g.done
	return g.err
}

// propose proposes repr (copied before it returns) and returns the wait of
// the entry it travels in.
func (p *proposer) propose(repr []byte) (wait func() error) {
	term, ok := p.term()
	if !ok {
		return func() error { return ErrNotPrimary }
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.inFlight < maxProposalsInFlight && len(p.waiting) == 0 {
		g := &proposalGroup{term: term, done: make(chan struct{})}
		p.start(g, entry(p.origin, repr))
		return g.wait
	}
	g, fresh := (*proposalGroup)(nil), false
	if n := len(p.waiting); n > 0 && p.waiting[n-1].term == term && len(p.waiting[n-1].repr)+len(repr) <= maxGroupBytes {
		g = p.waiting[n-1]
	} else {
		g, fresh = &proposalGroup{term: term, done: make(chan struct{})}, true
	}
	joined, err := storage.AppendRepr(g.repr, repr)
	if err != nil {
		// A representation that is no batch: fail it alone.
		return func() error { return fmt.Errorf("replica: propose: %w", err) }
	}
	g.repr = joined
	if fresh {
		p.waiting = append(p.waiting, g)
	}
	return g.wait
}

// start hands the entry data of g to raft and waits for it in a goroutine
// of its own. p.mu is held, so entries reach raft in the order of groups.
func (p *proposer) start(g *proposalGroup, data []byte) {
	p.inFlight++
	f := p.apply(data)
	go p.await(g, f)
}

// await waits for g's entry, wakes its proposers and starts the next
// waiting group.
func (p *proposer) await(g *proposalGroup, f raft.ApplyFuture) {
	g.err = applyResult(f, p.stop)
	close(g.done)
	p.mu.Lock()
	p.inFlight--
	for p.inFlight < maxProposalsInFlight && len(p.waiting) > 0 {
		next := p.waiting[0]
		p.waiting[0] = nil
		p.waiting = p.waiting[1:]
		if term, ok := p.term(); !ok || term != next.term {
			next.err = ErrNotPrimary
			close(next.done)
			continue
		}
		p.start(next, entry(p.origin, next.repr))
		next.repr = nil
	}
	p.mu.Unlock()
}
