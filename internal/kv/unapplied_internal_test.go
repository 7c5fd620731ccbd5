package kv

import (
	"sync"
	"testing"
	"time"

	"github.com/mayfly/mayfly/internal/storage"
)

// heldReplicator stands for a replica set whose round trips the test
// controls: each proposal is applied to the store only once the test
// releases it, and each call of a proposal's wait before that is reported.
type heldReplicator struct {
	st       *storage.Store
	proposed chan *heldProposal
}

type heldProposal struct {
	repr    []byte
	release chan struct{}
	once    sync.Once
	err     error
	// waited receives a value for every call of the wait that finds the
	// proposal not released.
	waited chan struct{}
}

func (r *heldReplicator) Replicate(repr []byte) error { return r.Propose(repr)() }

func (r *heldReplicator) Propose(repr []byte) func() error {
	p := &heldProposal{repr: append([]byte(nil), repr...), release: make(chan struct{}), waited: make(chan struct{}, 16)}
	r.proposed <- p
	return func() error {
		select {
		case <-p.release:
		default:
			p.waited <- struct{}{}
			<-p.release
		}
		p.once.Do(func() { p.err = r.st.ApplyReplicated(p.repr) })
		return p.err
	}
}

func (r *heldReplicator) Writable() error { return nil }

// openHeldStore opens a replicated store without a metadata cache, so that
// every metadata read goes to storage.
func openHeldStore(t *testing.T) (*Store, *heldReplicator) {
	t.Helper()
	st, err := storage.Open(storage.Options{Dir: "mem", InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	s, err := Open(t.Context(), Options{Store: st, MetaCacheSize: -1, Now: func() time.Time { return time.UnixMilli(1_000_000) }})
	if err != nil {
		t.Fatal(err)
	}
	rep := &heldReplicator{st: st, proposed: make(chan *heldProposal, 16)}
	st.SetReplicator(rep)
	t.Cleanup(func() { st.SetReplicator(nil) })
	return s, rep
}

// setAsync commits SET key value in a goroutine; the returned channel
// receives Commit's error.
func setAsync(s *Store, key, value string) <-chan error {
	done := make(chan error, 1)
	go func() {
		tx := s.Begin()
		if _, err := tx.Set([]byte(key), []byte(value), SetOptions{}); err != nil {
			tx.Rollback()
			done <- err
			return
		}
		done <- tx.Commit()
	}()
	return done
}

// lookupAsync reads key in a Tx of its own in a goroutine: looked receives
// what the lookup found once it has returned; the Tx ends once end is
// closed, and ended is closed when it has.
func lookupAsync(t *testing.T, s *Store, key string, end <-chan struct{}) (looked <-chan string, ended <-chan struct{}) {
	l, e := make(chan string, 1), make(chan struct{})
	go func() {
		defer close(e)
		tx := s.Begin()
		defer tx.Rollback()
		m, ok, err := tx.Lookup([]byte(key))
		switch {
		case err != nil:
			t.Error(err)
			l <- "error"
		case !ok:
			l <- "missing"
		default:
			l <- string(m.Payload)
		}
		<-end
	}()
	return l, e
}

// Ensure that on a replicated store a metadata read of a key no unapplied
// proposal wrote does not wait for the proposals in flight, and that a read
// of a key one of them wrote does (read-your-writes through storage).
func TestReplicatedReadWaitsOnlyForItsKeys(t *testing.T) {
	s, rep := openHeldStore(t)
	setA := setAsync(s, "a", "1")
	pa := <-rep.proposed
	<-pa.waited // SET a's Commit waits for its proposal

	endB := make(chan struct{})
	looked, endedB := lookupAsync(t, s, "b", endB)
	select {
	case got := <-looked:
		if got != "missing" {
			t.Fatalf("b = %q, want missing", got)
		}
	case <-pa.waited:
		t.Fatal("the read of b waited for the proposal of a")
	}
	close(endB)
	// Its Tx, ending, waits for the proposal before it, as every Tx does,
	// outside the lock.
	<-pa.waited

	endA := make(chan struct{})
	looked, ended := lookupAsync(t, s, "a", endA)
	select {
	case got := <-looked:
		t.Fatalf("the read of a returned %q before its proposal was applied", got)
	case <-pa.waited:
	}
	close(pa.release)
	if got := <-looked; got != "1" {
		t.Fatalf("a = %q, want 1", got)
	}
	close(endA)
	<-ended
	<-endedB
	if err := <-setA; err != nil {
		t.Fatal(err)
	}

	// Once its proposal is applied, a read of a waits for none.
	setB := setAsync(s, "b", "2")
	pb := <-rep.proposed
	<-pb.waited
	endA = make(chan struct{})
	looked, ended = lookupAsync(t, s, "a", endA)
	select {
	case got := <-looked:
		if got != "1" {
			t.Fatalf("a = %q, want 1", got)
		}
	case <-pb.waited:
		t.Fatal("the read of a waited for the proposal of b")
	}
	close(endA)
	close(pb.release)
	<-ended
	if err := <-setB; err != nil {
		t.Fatal(err)
	}
}

// Ensure that a FLUSHALL not yet applied makes every metadata read wait.
func TestReplicatedReadWaitsForPendingFlush(t *testing.T) {
	s, rep := openHeldStore(t)
	setA := setAsync(s, "a", "1")
	close((<-rep.proposed).release)
	if err := <-setA; err != nil {
		t.Fatal(err)
	}

	flushed := make(chan error, 1)
	go func() {
		tx := s.Begin()
		if err := tx.FlushAll(); err != nil {
			tx.Rollback()
			flushed <- err
			return
		}
		flushed <- tx.Commit()
	}()
	pf := <-rep.proposed
	<-pf.waited // FLUSHALL's Commit
	end := make(chan struct{})
	looked, ended := lookupAsync(t, s, "a", end)
	select {
	case got := <-looked:
		t.Fatalf("the read of a returned %q before the flush was applied", got)
	case <-pf.waited:
	}
	close(pf.release)
	if got := <-looked; got != "missing" {
		t.Fatalf("a = %q after FLUSHALL, want missing", got)
	}
	close(end)
	<-ended
	if err := <-flushed; err != nil {
		t.Fatal(err)
	}
}

// Ensure that the record of unapplied proposals forgets the applied ones.
func TestUnappliedForgetsAppliedProposals(t *testing.T) {
	var u unapplied
	s1 := u.next()
	u.note(s1, "x")
	s2 := u.next()
	u.note(s2, "x")
	u.note(s2, "y")
	if u.current([]byte("x")) || u.current([]byte("y")) || !u.current([]byte("z")) {
		t.Fatal("x and y should be stale, z current")
	}
	u.advance(s1)
	if u.current([]byte("x")) {
		t.Fatal("x was rewritten by proposal 2, which is not applied")
	}
	u.advance(s2)
	u.advance(s1) // an older number never moves it back
	if !u.current([]byte("x")) || !u.current([]byte("y")) {
		t.Fatal("x and y should be current once proposal 2 is applied")
	}
	u.next()
	if len(u.keys) != 0 || len(u.written) != 1 {
		t.Fatalf("kept %d keys and %d proposals after both were applied", len(u.keys), len(u.written))
	}
}
