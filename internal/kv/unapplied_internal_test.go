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
	return readAsync(s, end, func(tx *Tx) (string, error) {
		m, ok, err := tx.Lookup([]byte(key))
		if err != nil || !ok {
			return "missing", err
		}
		return string(m.Payload), nil
	})
}

// readAsync runs read in a Tx of its own in a goroutine, as lookupAsync
// does; looked receives "error" when read fails.
func readAsync(s *Store, end <-chan struct{}, read func(tx *Tx) (string, error)) (looked <-chan string, ended <-chan struct{}) {
	l, e := make(chan string, 1), make(chan struct{})
	go func() {
		defer close(e)
		tx := s.Begin()
		defer tx.Rollback()
		got, err := read(tx)
		if err != nil {
			got = "error"
		}
		l <- got
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

// hsetAsync commits HSET key field value in a goroutine; the returned
// channel receives Commit's error.
func hsetAsync(s *Store, key, field, value string) <-chan error {
	done := make(chan error, 1)
	go func() {
		tx := s.Begin()
		if _, err := tx.HSet([]byte(key), [][]byte{[]byte(field), []byte(value)}); err != nil {
			tx.Rollback()
			done <- err
			return
		}
		done <- tx.Commit()
	}()
	return done
}

// hgetAsync reads field of the hash at key as readAsync does.
func hgetAsync(s *Store, key, field string, end <-chan struct{}) (looked <-chan string, ended <-chan struct{}) {
	return readAsync(s, end, func(tx *Tx) (string, error) {
		v, ok, err := tx.HGet([]byte(key), []byte(field))
		if err != nil || !ok {
			return "missing", err
		}
		return string(v), nil
	})
}

// Ensure that on a replicated store a read of a hash's fields does not
// wait for a proposal in flight that wrote the fields of another hash, and
// that a read of the hash it wrote does.
func TestReplicatedElementReadWaitsOnlyForItsVersion(t *testing.T) {
	s, rep := openHeldStore(t)
	setB := hsetAsync(s, "b", "f", "1")
	close((<-rep.proposed).release)
	if err := <-setB; err != nil {
		t.Fatal(err)
	}

	setA := hsetAsync(s, "a", "f", "2")
	pa := <-rep.proposed
	<-pa.waited // HSET a's Commit waits for its proposal
	endB := make(chan struct{})
	looked, endedB := hgetAsync(s, "b", "f", endB)
	select {
	case got := <-looked:
		if got != "1" {
			t.Fatalf("HGET b f = %q, want 1", got)
		}
	case <-pa.waited:
		t.Fatal("the read of b's field waited for the proposal that wrote a's")
	}
	close(endB)
	<-pa.waited // the Tx, ending, waits for the proposal before it

	endA := make(chan struct{})
	looked, endedA := hgetAsync(s, "a", "f", endA)
	select {
	case got := <-looked:
		t.Fatalf("HGET a f returned %q before its proposal was applied", got)
	case <-pa.waited:
	}
	close(pa.release)
	if got := <-looked; got != "2" {
		t.Fatalf("HGET a f = %q, want 2", got)
	}
	close(endA)
	<-endedA
	<-endedB
	if err := <-setA; err != nil {
		t.Fatal(err)
	}
}

// Ensure that the record of unapplied proposals names the element versions
// a batch writes, within one version's prefix, and counts a range deletion
// across versions as a flush.
func TestUnappliedNotesElementVersions(t *testing.T) {
	st, err := storage.Open(storage.Options{Dir: "mem", InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	elem := func(v uint64, suffix string) []byte { return append(subPrefix(0, v), suffix...) }
	var u unapplied
	note := func(write func(b *storage.Batch)) uint64 {
		b := st.NewBatch()
		defer b.Close()
		write(b)
		seq := u.next()
		u.noteWrites(seq, b)
		return seq
	}
	s1 := note(func(b *storage.Batch) {
		b.Set(elem(7, "f"), nil)
		b.Delete(elem(8, "g"))
		b.DeleteRange(elem(9, "a"), elem(9, "z"))
		b.DeleteRange(subPrefix(0, 10), subPrefix(0, 11))
		b.Set(metaKey(nil, 0, []byte("k")), nil)
		b.DeleteRange([]byte{storage.PrefixRedisSub + 1}, []byte{storage.PrefixRedisSub + 2})
	})
	for v, want := range map[uint64]bool{7: false, 8: false, 9: false, 10: false, 11: true, 6: true} {
		if got := u.currentVersion(v); got != want {
			t.Errorf("after proposal 1, version %d current = %v, want %v", v, got, want)
		}
	}
	u.advance(s1)
	if !u.currentVersion(7) {
		t.Fatal("version 7 stale once its proposal is applied")
	}
	s2 := note(func(b *storage.Batch) { b.DeleteRange(elem(3, "a"), elem(5, "a")) })
	if u.currentVersion(100) {
		t.Fatal("a range deletion across versions should make every version wait")
	}
	u.advance(s2)
	u.next()
	if !u.currentVersion(100) || len(u.versions) != 0 {
		t.Fatalf("kept %d versions after every proposal was applied", len(u.versions))
	}
}
