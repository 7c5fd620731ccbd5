package docdb

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/events"
	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
	"github.com/mayfly/mayfly/internal/storage"
)

// gatedReplicator stands for a replica set: it applies each batch to the
// store, and holds the first one until release is closed.
type gatedReplicator struct {
	st        *storage.Store
	proposals atomic.Int32
	held      chan struct{} // closed once the first batch is held
	release   chan struct{}
}

func (r *gatedReplicator) Replicate(repr []byte) error {
	if r.proposals.Add(1) == 1 {
		close(r.held)
		<-r.release
	}
	return r.st.ApplyReplicated(repr)
}

func (r *gatedReplicator) Propose(repr []byte) func() error {
	err := r.Replicate(repr)
	return func() error { return err }
}

func (r *gatedReplicator) Writable() error { return nil }

// gateReplication makes te's store replicated through a gatedReplicator
// until the test ends.
func gateReplication(t *testing.T, te *testEngine) *gatedReplicator {
	rep := &gatedReplicator{st: te.store, held: make(chan struct{}), release: make(chan struct{})}
	te.store.SetReplicator(rep)
	t.Cleanup(func() { te.store.SetReplicator(nil) })
	return rep
}

// Ensure that on a replicated store the single-document inserts queued
// while a commit is in flight commit together, in one batch, and that the
// unique index stays exact among them: of the writes of one email exactly
// one succeeds, the others get E11000.
func TestGroupedInsertsShareOneCommit(t *testing.T) {
	te := newTestEngine(t)
	ctx := t.Context()
	if _, err := te.CreateIndexes(ctx, "app", "users", indexSpecs(d("key", d("email", int32(1)), "name", "email_1", "unique", true))); err != nil {
		t.Fatal(err)
	}
	te.mustInsert("app", "users", d("_id", "seed", "email", "seed"))
	rep := gateReplication(t, te)

	insert := func(id, email string) error {
		res, err := te.Insert(ctx, "app", "users", InsertRequest{Documents: []bson.Raw{raw(t, d("_id", id, "email", email))}, Ordered: true})
		if err != nil {
			return err
		}
		if len(res.WriteErrors) > 0 {
			return res.WriteErrors[0].Err
		}
		if res.N != 1 {
			return fmt.Errorf("n %d", res.N)
		}
		return nil
	}
	first := make(chan error, 1)
	go func() { first <- insert("w0", "e0") }()
	<-rep.held

	const writers, emails = 20, 5
	errs := make([]error, writers)
	var wg sync.WaitGroup
	for i := 1; i <= writers; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i-1] = insert(fmt.Sprintf("w%d", i), fmt.Sprintf("e%d", i%emails))
		}()
	}
	releaseQueued(t, te.writeGroupOf("app", "users"), rep, first, &wg, writers)
	won := map[string]int{}
	for i, err := range errs {
		email := fmt.Sprintf("e%d", (i+1)%emails)
		if err == nil {
			won[email]++
			continue
		}
		if me, ok := mongoerr.As(err); !ok || me.Code != mongoerr.DuplicateKey {
			t.Fatalf("writer %d: %v", i+1, err)
		}
	}
	for e := 0; e < emails; e++ {
		email := fmt.Sprintf("e%d", e)
		// e0 was taken by the held insert.
		want := 1
		if e == 0 {
			want = 0
		}
		if won[email] != want {
			t.Fatalf("email %s: %d inserts acknowledged, want %d", email, won[email], want)
		}
	}
	if n := len(te.storedDocs("app", "users")); n != 1+1+emails-1 {
		t.Fatalf("%d documents stored, want %d", n, 1+1+emails-1)
	}
}

// Ensure that a standalone groups as a member does: the inserts queued
// while the collection's lock is held commit as one batch, which the change
// log records as one entry.
func TestStandaloneGroupsInserts(t *testing.T) {
	te := newTestEngine(t, withChangeLog)
	ctx := t.Context()
	te.mustInsert("app", "users", d("_id", "seed"))
	entries := func() int { return countRange(t, te.store, events.Key(0)[:2]) }
	before := entries()

	c, err := te.lockForWrite("app", "users", false)
	if err != nil {
		t.Fatal(err)
	}
	const writers = 20
	errs := make([]error, writers)
	var wg sync.WaitGroup
	for i := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := te.Insert(ctx, "app", "users", InsertRequest{Documents: []bson.Raw{raw(t, d("_id", fmt.Sprintf("w%d", i)))}, Ordered: true})
			if err == nil && res.N != 1 {
				err = fmt.Errorf("n %d, write errors %v", res.N, res.WriteErrors)
			}
			errs[i] = err
		}()
	}
	// One writer leads and waits for the lock; the others queue behind it.
	waitQueued(t, te.writeGroupOf("app", "users"), writers-1)
	c.WriteMu.Unlock()
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("writer %d: %v", i, err)
		}
	}
	if n := len(te.storedDocs("app", "users")); n != 1+writers {
		t.Fatalf("%d documents stored, want %d", n, 1+writers)
	}
	if got := entries() - before; got != 2 {
		t.Fatalf("%d change-log entries for %d inserts, want 2 (the leader's and one for the queued)", got, writers)
	}
}

// waitQueued waits until n writes are queued on g.
func waitQueued(t *testing.T, g *writeGroup, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		g.mu.Lock()
		queued := len(g.queue)
		g.mu.Unlock()
		if queued == n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d writes queued, want %d", queued, n)
		}
		runtime.Gosched()
	}
}

// releaseQueued waits until writers writes are queued on g behind the
// commit rep holds, releases it, waits for the held write (first) and the
// queued ones (wg), and checks that the queued ones shared one batch.
func releaseQueued(t *testing.T, g *writeGroup, rep *gatedReplicator, first <-chan error, wg *sync.WaitGroup, writers int) {
	t.Helper()
	waitQueued(t, g, writers)
	close(rep.release)
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	if got := rep.proposals.Load(); got != 2 {
		t.Fatalf("%d batches proposed, want 2 (the held one and one for the %d queued)", got, writers)
	}
}

// Ensure that on a replicated store the deletes of one document queued
// while a commit is in flight commit together, in one batch, each seeing
// the deletions before it: of the deletes of one document exactly one
// reports it deleted.
func TestGroupedDeletesShareOneCommit(t *testing.T) {
	te := newTestEngine(t)
	ctx := t.Context()
	const docs = 8
	for i := 0; i < docs; i++ {
		te.mustInsert("app", "users", d("_id", fmt.Sprintf("u%d", i), "team", "a"))
	}
	rep := gateReplication(t, te)

	deleteOne := func(id string) (int64, error) {
		res, err := te.Delete(ctx, "app", "users", DeleteRequest{Statements: []DeleteStatement{{Filter: d("_id", id), Limit: 1}}, Ordered: true})
		if err == nil && len(res.WriteErrors) > 0 {
			err = res.WriteErrors[0].Err
		}
		return res.N, err
	}
	first := make(chan error, 1)
	go func() {
		_, err := deleteOne("u0")
		first <- err
	}()
	<-rep.held

	const writers = 20
	deleted := make([]int64, writers)
	errs := make([]error, writers)
	var wg sync.WaitGroup
	for i := 0; i < writers; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			deleted[i], errs[i] = deleteOne(fmt.Sprintf("u%d", 1+i%(docs-2))) // u7 is left
		}()
	}
	releaseQueued(t, te.writeGroupOf("app", "users"), rep, first, &wg, writers)
	byDoc := map[int]int64{}
	for i, err := range errs {
		if err != nil {
			t.Fatalf("delete %d: %v", i, err)
		}
		byDoc[1+i%(docs-2)] += deleted[i]
	}
	for doc := 1; doc < docs-1; doc++ {
		if byDoc[doc] != 1 {
			t.Fatalf("u%d: the deletes of it report %d deleted, want 1", doc, byDoc[doc])
		}
	}
	if got := te.storedDocs("app", "users"); len(got) != 1 {
		t.Fatalf("%d documents stored, want 1 (u7)", len(got))
	}
}

// Ensure that on a replicated store the findAndModifys queued while a
// commit is in flight commit together, in one batch, each seeing the
// writes before it, as a job queue needs: of the claims of the ready jobs
// each job goes to exactly one claimer, and of two upserts of one unique
// email exactly one succeeds while the other gets E11000 alone.
func TestGroupedFindAndModifysShareOneCommit(t *testing.T) {
	te := newTestEngine(t)
	ctx := t.Context()
	if _, err := te.CreateIndexes(ctx, "app", "jobs", indexSpecs(d("key", d("email", int32(1)), "name", "email_1", "unique", true, "sparse", true))); err != nil {
		t.Fatal(err)
	}
	const jobs = 8
	for i := 0; i < jobs; i++ {
		te.mustInsert("app", "jobs", d("_id", fmt.Sprintf("j%d", i), "state", "ready"))
	}
	rep := gateReplication(t, te)

	claim := func(by int) (FindAndModifyResult, error) {
		return te.FindAndModify(ctx, "app", "jobs", FindAndModifyRequest{
			Query: d("state", "ready"), Sort: d("_id", int32(1)), New: true,
			Update: d("$set", d("state", "taken", "by", int32(by))), Fields: d("_id", int32(1), "by", int32(1)),
		})
	}
	first := make(chan error, 1)
	go func() {
		_, err := claim(0)
		first <- err
	}()
	<-rep.held

	const claimers, writers = 18, 20
	results := make([]FindAndModifyResult, writers)
	errs := make([]error, writers)
	var wg sync.WaitGroup
	for i := 0; i < writers; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if i < claimers {
				results[i], errs[i] = claim(1 + i)
				return
			}
			results[i], errs[i] = te.FindAndModify(ctx, "app", "jobs", FindAndModifyRequest{
				Query: d("email", "x", "state", "none"), Update: d("$set", d("state", "user")), Upsert: true,
			})
		}()
	}
	releaseQueued(t, te.writeGroupOf("app", "jobs"), rep, first, &wg, writers)

	claimedBy := map[string]int32{}
	for i := 0; i < claimers; i++ {
		if errs[i] != nil {
			t.Fatalf("claim %d: %v", i, errs[i])
		}
		if results[i].Value == nil {
			if results[i].N != 0 {
				t.Fatalf("claim %d: no document but n %d", i, results[i].N)
			}
			continue
		}
		id := results[i].Value.Lookup("_id").StringValue()
		if prev, ok := claimedBy[id]; ok {
			t.Fatalf("job %s claimed by %d and by %d", id, prev, i+1)
		}
		by := results[i].Value.Lookup("by").Int32()
		if by != int32(i+1) {
			t.Fatalf("claim %d returned job %s with by %d: not its own update", i+1, id, by)
		}
		claimedBy[id] = by
	}
	if len(claimedBy) != jobs-1 {
		t.Fatalf("%d jobs claimed by the queued claimers, want %d", len(claimedBy), jobs-1)
	}
	var upserted, duplicates int
	for i := claimers; i < writers; i++ {
		switch {
		case errs[i] == nil && results[i].Upserted.Type != 0:
			upserted++
		case errs[i] != nil:
			wantCode(t, errs[i], mongoerr.DuplicateKey, "")
			duplicates++
		default:
			t.Fatalf("upsert %d: neither upserted nor refused: %+v", i, results[i])
		}
	}
	if upserted != 1 || duplicates != 1 {
		t.Fatalf("%d upserted and %d refused, want 1 and 1", upserted, duplicates)
	}
	if got := te.storedDocs("app", "jobs"); len(got) != jobs+1 {
		t.Fatalf("%d documents stored, want %d", len(got), jobs+1)
	}
}
