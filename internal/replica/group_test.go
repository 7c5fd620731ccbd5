package replica

import (
	"encoding/binary"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/hashicorp/raft"

	"github.com/mayfly/mayfly/internal/storage"
)

// heldFuture is a raft.ApplyFuture the test completes.
type heldFuture struct {
	done chan struct{}
	err  error
}

func (f *heldFuture) Error() error  { <-f.done; return f.err }
func (f *heldFuture) Response() any { return nil }
func (f *heldFuture) Index() uint64 { return 0 }

func (f *heldFuture) complete(err error) {
	f.err = err
	close(f.done)
}

// heldRaft records the entries a proposer hands over, each with its
// future.
type heldRaft struct {
	mu      sync.Mutex
	entries [][]byte
	futures []*heldFuture
	handed  chan struct{} // a value per entry
}

func newHeldRaft() *heldRaft { return &heldRaft{handed: make(chan struct{}, 1024)} }

func (h *heldRaft) apply(data []byte) raft.ApplyFuture {
	h.mu.Lock()
	defer h.mu.Unlock()
	f := &heldFuture{done: make(chan struct{})}
	h.entries = append(h.entries, append([]byte(nil), data...))
	h.futures = append(h.futures, f)
	h.handed <- struct{}{}
	return f
}

func (h *heldRaft) entry(i int) ([]byte, *heldFuture) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.entries[i], h.futures[i]
}

func (h *heldRaft) count() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.entries)
}

// groupStore is a store to build batches in and apply entries to.
func groupStore(t *testing.T) *storage.Store {
	t.Helper()
	st, err := storage.Open(storage.Options{Dir: "mem", InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// setRepr returns the representation of a batch setting key to value.
func setRepr(t *testing.T, st *storage.Store, key, value string) []byte {
	t.Helper()
	b := st.NewBatch()
	defer b.Close()
	if err := b.Set([]byte(key), []byte(value)); err != nil {
		t.Fatal(err)
	}
	return append([]byte(nil), b.Repr()...)
}

func getString(t *testing.T, st *storage.Store, key string) string {
	t.Helper()
	v, err := st.Get([]byte(key))
	if errors.Is(err, storage.ErrNotFound) {
		return ""
	}
	if err != nil {
		t.Fatal(err)
	}
	return string(v)
}

// heldMember is the primary term and writability a test's proposer sees.
type heldMember struct {
	mu       sync.Mutex
	term     uint64
	writable bool
}

func (m *heldMember) set(term uint64, writable bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.term, m.writable = term, writable
}

func (m *heldMember) state() (uint64, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.term, m.writable
}

// newHeldProposer returns a store, a proposer of a member in term 1 whose
// entries h holds, and the member's state.
func newHeldProposer(t *testing.T) (*storage.Store, *heldRaft, *proposer, *heldMember) {
	st := groupStore(t)
	h := newHeldRaft()
	m := &heldMember{term: 1, writable: true}
	return st, h, &proposer{origin: [originLen]byte{1}, apply: h.apply, term: m.state}, m
}

// fillInFlight makes maxProposalsInFlight proposals, which go alone.
func fillInFlight(t *testing.T, st *storage.Store, p *proposer) []func() error {
	var alone []func() error
	for i := range maxProposalsInFlight {
		alone = append(alone, p.propose(setRepr(t, st, fmt.Sprint("alone", i), "x")))
	}
	return alone
}

func isDone(wait func() error) (error, bool) {
	done := make(chan error, 1)
	go func() { done <- wait() }()
	select {
	case err := <-done:
		return err, true
	default:
		return nil, false
	}
}

// Ensure that the proposals made while maxProposalsInFlight entries are in
// flight travel as one entry, handed over once one of those completes, that
// the entry applies their batches in the order they were proposed, and
// that each proposer is answered only with its own entry.
func TestProposerJoinsProposalsWhileEntriesAreInFlight(t *testing.T) {
	st, h, p, _ := newHeldProposer(t)
	alone := fillInFlight(t, st, p)
	if got := h.count(); got != maxProposalsInFlight {
		t.Fatalf("%d entries handed to raft, want %d", got, maxProposalsInFlight)
	}
	joined := []func() error{
		p.propose(setRepr(t, st, "k", "1")),
		p.propose(setRepr(t, st, "k", "2")),
		p.propose(setRepr(t, st, "other", "3")),
	}
	if got := h.count(); got != maxProposalsInFlight {
		t.Fatalf("%d entries handed to raft while %d are in flight, want %d", got, maxProposalsInFlight, maxProposalsInFlight)
	}

	_, first := h.entry(0)
	first.complete(nil)
	if err := alone[0](); err != nil {
		t.Fatal(err)
	}
	for range maxProposalsInFlight + 1 { // the ones alone, then the group
		<-h.handed
	}
	if got := h.count(); got != maxProposalsInFlight+1 {
		t.Fatalf("%d entries after one completed, want %d", got, maxProposalsInFlight+1)
	}
	data, group := h.entry(maxProposalsInFlight)
	if [originLen]byte(data[:originLen]) != p.origin {
		t.Fatal("the joined entry does not start with the origin")
	}
	for _, w := range joined {
		if _, done := isDone(w); done {
			t.Fatal("a joined proposal was answered before its entry completed")
		}
	}
	if err := st.ApplyReplicated(data[originLen:]); err != nil {
		t.Fatal(err)
	}
	if k, o := getString(t, st, "k"), getString(t, st, "other"); k != "2" || o != "3" {
		t.Fatalf("after the joined entry k=%q other=%q, want 2 and 3 (the batches in order)", k, o)
	}
	group.complete(nil)
	for _, w := range joined {
		if err := w(); err != nil {
			t.Fatal(err)
		}
	}
	for i := 1; i < maxProposalsInFlight; i++ {
		if _, done := isDone(alone[i]); done {
			t.Fatal("a proposal was answered before its own entry completed")
		}
		_, f := h.entry(i)
		f.complete(nil)
		if err := alone[i](); err != nil {
			t.Fatal(err)
		}
	}
}

// Ensure that an entry that fails fails its own proposers only.
func TestProposerFailsOnlyTheFailedEntrysProposals(t *testing.T) {
	st, h, p, _ := newHeldProposer(t)
	alone := fillInFlight(t, st, p)
	g1 := p.propose(setRepr(t, st, "g", "1"))
	g2 := p.propose(setRepr(t, st, "g", "2"))

	failure := errors.New("the state machine refused the batch")
	_, f0 := h.entry(0)
	f0.complete(failure)
	if err := alone[0](); !errors.Is(err, failure) {
		t.Fatalf("the failed entry's proposer got %v, want %v", err, failure)
	}
	for i := range maxProposalsInFlight + 1 {
		if i == 0 {
			continue
		}
		for h.count() <= i {
			<-h.handed
		}
		_, f := h.entry(i)
		f.complete(nil)
	}
	for i, w := range append(alone[1:], g1, g2) {
		if err := w(); err != nil {
			t.Fatalf("proposal %d of another entry got %v", i, err)
		}
	}
}

// Ensure that a member that is not writable refuses proposals at once, and
// that a group made in an earlier primary term is never handed to raft in
// a later one.
func TestProposerRefusesGroupsOfAnotherTerm(t *testing.T) {
	st, h, p, m := newHeldProposer(t)
	m.set(1, false)
	if err := p.propose(setRepr(t, st, "k", "v"))(); !errors.Is(err, ErrNotPrimary) {
		t.Fatalf("a proposal on a member that is not writable got %v, want ErrNotPrimary", err)
	}
	if h.count() != 0 {
		t.Fatal("a refused proposal reached raft")
	}

	m.set(1, true)
	alone := fillInFlight(t, st, p)
	stale := p.propose(setRepr(t, st, "k", "old term"))
	m.set(2, true) // lost and won the role again meanwhile
	for i := range maxProposalsInFlight {
		_, f := h.entry(i)
		f.complete(nil)
		if err := alone[i](); err != nil {
			t.Fatal(err)
		}
	}
	if err := stale(); !errors.Is(err, ErrNotPrimary) {
		t.Fatalf("a group of the earlier term got %v, want ErrNotPrimary", err)
	}
	if got := h.count(); got != maxProposalsInFlight {
		t.Fatalf("%d entries reached raft, want %d (not the stale group)", got, maxProposalsInFlight)
	}
}

// Ensure that under concurrent proposers every proposal is answered, every
// batch is applied exactly once, and each proposer's batches apply in the
// order it proposed them.
func TestProposerKeepsEachProposersOrderUnderConcurrency(t *testing.T) {
	st := groupStore(t)
	var mu sync.Mutex
	var entries [][]byte
	p := &proposer{
		origin: [originLen]byte{2},
		term:   func() (uint64, bool) { return 1, true },
		apply: func(data []byte) raft.ApplyFuture {
			mu.Lock()
			entries = append(entries, append([]byte(nil), data...))
			mu.Unlock()
			f := &heldFuture{done: make(chan struct{})}
			go f.complete(nil) // raft answers later, on its own goroutine
			return f
		},
	}
	const proposers, each = 8, 50
	reprs := make([][][]byte, proposers)
	for g := range proposers {
		for i := range each {
			reprs[g] = append(reprs[g], setRepr(t, st, fmt.Sprint("p", g), fmt.Sprint(i)))
		}
	}
	var wg sync.WaitGroup
	errs := make(chan error, proposers*each)
	for g := range proposers {
		wg.Go(func() {
			var waits []func() error
			for _, r := range reprs[g] {
				waits = append(waits, p.propose(r))
			}
			for _, w := range waits {
				errs <- w()
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	records := 0
	for _, e := range entries {
		if err := st.ApplyReplicated(e[originLen:]); err != nil {
			t.Fatal(err)
		}
		records += int(binary.LittleEndian.Uint32(e[originLen+8 : originLen+12])) // the batch header's count
	}
	if records != proposers*each {
		t.Fatalf("the entries hold %d writes, want %d", records, proposers*each)
	}
	for g := range proposers {
		if got, want := getString(t, st, fmt.Sprint("p", g)), fmt.Sprint(each-1); got != want {
			t.Fatalf("p%d = %q after every entry, want %q (its last batch)", g, got, want)
		}
	}
}

// Ensure that a proposal that is not a batch representation fails alone,
// without reaching raft or the group it would have joined.
func TestProposerFailsANonBatchAlone(t *testing.T) {
	st, h, p, _ := newHeldProposer(t)
	alone := fillInFlight(t, st, p)
	if err := p.propose([]byte("short"))(); err == nil {
		t.Fatal("a proposal of 5 bytes was accepted")
	}
	good := p.propose(setRepr(t, st, "k", "v"))
	for i := range maxProposalsInFlight {
		_, f := h.entry(i)
		f.complete(nil)
		if err := alone[i](); err != nil {
			t.Fatal(err)
		}
	}
	for h.count() <= maxProposalsInFlight {
		<-h.handed
	}
	data, f := h.entry(maxProposalsInFlight)
	if err := st.ApplyReplicated(data[originLen:]); err != nil {
		t.Fatal(err)
	}
	f.complete(nil)
	if err := good(); err != nil {
		t.Fatal(err)
	}
	if got := getString(t, st, "k"); got != "v" {
		t.Fatalf("k = %q, want v", got)
	}
}

// Ensure that a node that stops answers every proposal raft left without
// an answer, those in flight and those waiting in a group, with
// ErrNotPrimary.
func TestProposerAnswersUnansweredEntriesOnStop(t *testing.T) {
	st, _, p, _ := newHeldProposer(t)
	stop := make(chan struct{})
	p.stop = stop
	waits := fillInFlight(t, st, p)
	waits = append(waits, p.propose(setRepr(t, st, "k", "1")))
	close(stop)
	for i, wait := range waits {
		if err := wait(); !errors.Is(err, ErrNotPrimary) {
			t.Fatalf("proposal %d after the stop: %v, want ErrNotPrimary", i, err)
		}
	}
}
