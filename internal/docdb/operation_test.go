package docdb

import (
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/catalog"
	"github.com/mayfly/mayfly/internal/docdb/policy"
	"github.com/mayfly/mayfly/internal/expiry"
	"github.com/mayfly/mayfly/internal/storage"
)

// newBubbleEngine opens a test engine whose clock is the bubble's time, so
// the build's pacing advances with it, and whose builds go chunk
// documents at a time.
func newBubbleEngine(t *testing.T, chunk int64, mods ...func(*Options)) *testEngine {
	t.Helper()
	te := newTestEngine(t, append([]func(*Options){func(o *Options) { o.Now = time.Now }}, mods...)...)
	te.pol.Chunk.Store(chunk)
	return te
}

// insertSessions inserts n documents into db.sessions whose expireAt is
// i hours ago for document i (the first expired documents, then the rest
// in the future when future is set).
func insertSessions(te *testEngine, db string, n, expired int) {
	te.t.Helper()
	now := te.opts.Now()
	var docs []bson.D
	for i := range n {
		at := now.Add(time.Duration(i+1) * time.Hour)
		if i < expired {
			at = now.Add(-time.Duration(i+1) * time.Hour)
		}
		docs = append(docs, d("_id", int32(i), "expireAt", date(at)))
	}
	te.mustInsert(db, "sessions", docs...)
}

func (te *testEngine) mustOp(id string) policy.Operation {
	te.t.Helper()
	op, err := te.GetOperation(te.t.Context(), id)
	if err != nil {
		te.t.Fatal(err)
	}
	return op
}

// Ensure that the build goes in paced chunks, that its progress is stored
// with each chunk, and that an operation cut short by a restart resumes
// where it stopped instead of starting over.
func TestPolicyBuildResumesAfterRestart(t *testing.T) {
	inBubble(t, func(t *testing.T) {
		te := newBubbleEngine(t, 2)
		insertSessions(te, "app", 7, 3)
		op := te.enable("sessions", "expireAt", 0)
		syncWait()
		got := te.mustOp(op.ID)
		if got.Done || got.State != policy.Creating || got.Progress.DocumentsScanned != 2 || got.Progress.ExpiredFound != 2 {
			t.Fatalf("after the first chunk: %+v", got)
		}
		time.Sleep(policy.BuildPause)
		syncWait()
		if got := te.mustOp(op.ID); got.Progress.DocumentsScanned != 4 {
			t.Fatalf("after one pause: scanned %d, want 4", got.Progress.DocumentsScanned)
		}
		te.reopen() // Close cancels the build; Open resumes it (1,000 a chunk)
		syncWait()
		got = te.mustOp(op.ID)
		want := policy.OperationProgress{DocumentsScanned: 7, DocumentsEstimate: 7, ExpiredFound: 3}
		if !got.Done || got.State != policy.Active || got.Progress != want {
			t.Fatalf("after the restart: %+v, want ACTIVE with %+v", got, want)
		}
		if n := te.policyEntries("app", "sessions"); n != 7 {
			t.Fatalf("%d hidden entries, want 7", n)
		}
		te.mustCheckPolicies()
		pol, err := te.GetPolicy(t.Context(), "sessions")
		if err != nil || pol.State != policy.Active {
			t.Fatalf("policy after the restart: %+v, %v", pol, err)
		}
	})
}

// Ensure that writers keep a hidden index exact while it is being built,
// whatever they do to documents the build has or has not reached yet.
func TestPolicyBuildWithConcurrentWrites(t *testing.T) {
	inBubble(t, func(t *testing.T) {
		te := newBubbleEngine(t, 3)
		insertSessions(te, "app", 40, 10)
		op := te.enable("sessions", "expireAt", 0)
		var wg sync.WaitGroup
		wg.Go(func() {
			now := time.Now()
			for i := range 40 {
				id := int32((i * 7) % 45)
				switch i % 4 {
				case 0:
					te.mustUpdate("app", "sessions", UpdateStatement{Filter: d("_id", id), Update: d("$set", d("expireAt", date(now.Add(time.Duration(i)*time.Minute)))), Upsert: true})
				case 1:
					te.mustUpdate("app", "sessions", UpdateStatement{Filter: d("_id", id), Update: d("$unset", d("expireAt", ""))})
				case 2:
					if _, err := te.Delete(t.Context(), "app", "sessions", DeleteRequest{Statements: []DeleteStatement{{Filter: d("_id", id)}}, Ordered: true}); err != nil {
						t.Error(err)
					}
				case 3:
					te.mustInsert("app", "sessions", d("_id", int32(100+i), "expireAt", bson.A{date(now), date(now.Add(-time.Minute))}))
				}
				time.Sleep(3 * time.Millisecond)
			}
		})
		wg.Wait()
		if done := te.waitOp(op.ID); done.State != policy.Active {
			t.Fatalf("operation %+v", done)
		}
		te.mustCheckPolicies()
	})
}

// Ensure that disabling a policy during its build ends the build (its
// operation ends DISABLED, superseded), stops hiding documents and drops
// the hidden index with its entries.
func TestPolicyDisableDuringBuild(t *testing.T) {
	inBubble(t, func(t *testing.T) {
		reg := newFakeRegistry()
		te := newBubbleEngine(t, 2, func(o *Options) { o.Expiry = reg })
		insertSessions(te, "app", 7, 3)
		op := te.enable("sessions", "expireAt", 0)
		syncWait()
		c := te.lookupColl("app", "sessions")
		ix := te.pol.IndexOf(c.Meta.ID)
		if ix == nil || ix.Complete {
			t.Fatalf("index during the build: %+v", ix)
		}
		if got := idsOf(te, "app", "sessions"); got != "3,4,5,6" {
			t.Fatalf("during the build: %s", got)
		}
		dis, err := te.UpdatePolicy(t.Context(), policy.Update{Group: "sessions", Field: "expireAt"})
		if err != nil || !dis.Done || dis.State != policy.Disabled || dis.Type != policy.OpDisableTTL {
			t.Fatalf("disable = %+v, %v", dis, err)
		}
		time.Sleep(time.Second)
		syncWait()
		got := te.mustOp(op.ID)
		if !got.Done || got.State != policy.Disabled || got.Error != "superseded by "+dis.ID {
			t.Fatalf("superseded build: %+v", got)
		}
		if got.Progress.DocumentsScanned != 2 {
			t.Fatalf("the build went on after the disable: %+v", got.Progress)
		}
		if te.pol.IndexOf(c.Meta.ID) != nil || countRange(t, te.store, catalog.IndexPrefix(ix.ID)) != 0 {
			t.Fatal("the hidden index survived the disable")
		}
		if got := idsOf(te, "app", "sessions"); got != "0,1,2,3,4,5,6" {
			t.Fatalf("after the disable: %s", got)
		}
		if len(reg.names()) != 0 {
			t.Fatalf("sources after the disable: %v", reg.names())
		}
		pol, err := te.GetPolicy(t.Context(), "sessions")
		if err != nil || pol.State != policy.Disabled || pol.Operation != dis.ID {
			t.Fatalf("policy %+v, %v", pol, err)
		}
		// Disabling again is a no-op operation; enabling again rebuilds.
		again, err := te.UpdatePolicy(t.Context(), policy.Update{Group: "sessions", Field: "expireAt"})
		if err != nil || again.State != policy.Disabled || !again.Done {
			t.Fatalf("second disable: %+v, %v", again, err)
		}
		re := te.enable("sessions", "expireAt", 0)
		if done := te.waitOp(re.ID); done.State != policy.Active || done.Progress.DocumentsScanned != 7 {
			t.Fatalf("re-enable: %+v", done)
		}
		te.mustCheckPolicies()
	})
}

// countRange counts the stored keys with prefix p.
func countRange(t *testing.T, st *storage.Store, p []byte) int {
	t.Helper()
	it, err := st.NewIter(p, storage.PrefixEnd(p))
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	n := 0
	for ok := it.First(); ok; ok = it.Next() {
		n++
	}
	return n
}

// Ensure that an offset change is metadata only: on an active policy it is
// an UPDATE_TTL_OFFSET operation done at once that moves every due time,
// and during a build the running operation takes the new offset.
func TestPolicyOffsetChange(t *testing.T) {
	inBubble(t, func(t *testing.T) {
		reg := newFakeRegistry()
		te := newBubbleEngine(t, 2, func(o *Options) { o.Expiry = reg })
		insertSessions(te, "app", 5, 2)
		op := te.enable("sessions", "expireAt", 0)
		syncWait()
		during := te.enable("sessions", "expireAt", 90*time.Minute)
		if during.ID != op.ID || during.Offset != 90*time.Minute || during.Done {
			t.Fatalf("offset change during the build returned %+v, want the running %s", during, op.ID)
		}
		if got := idsOf(te, "app", "sessions"); got != "0,2,3,4" {
			t.Fatalf("with a 90 minute offset: %s", got)
		}
		done := te.waitOp(op.ID)
		if done.State != policy.Active || done.Offset != 90*time.Minute {
			t.Fatalf("finished build %+v", done)
		}
		c := te.lookupColl("app", "sessions")
		ixBefore := te.pol.IndexOf(c.Meta.ID)
		src := reg.get("policy:sessions.expireAt")
		before, _, _ := src.NextDue(t.Context())

		upd := te.enable("sessions", "expireAt", 3*time.Hour)
		if upd.Type != policy.OpUpdateTTLOffset || !upd.Done || upd.State != policy.Active || upd.Offset != 3*time.Hour {
			t.Fatalf("offset change = %+v", upd)
		}
		after, _, _ := src.NextDue(t.Context())
		if after.Sub(before) != 90*time.Minute {
			t.Fatalf("NextDue moved by %v, want 90m", after.Sub(before))
		}
		if ix := te.pol.IndexOf(c.Meta.ID); ix != ixBefore {
			t.Fatal("an offset change rebuilt the hidden index")
		}
		if got := idsOf(te, "app", "sessions"); got != "0,1,2,3,4" {
			t.Fatalf("with a 3 hour offset: %s", got)
		}
		pol, _ := te.GetPolicy(t.Context(), "sessions")
		if pol.Offset != 3*time.Hour || pol.Operation != upd.ID || pol.State != policy.Active {
			t.Fatalf("policy %+v", pol)
		}
	})
}

// Ensure that a build that fails (here on a corrupt document) leaves the
// policy NEEDS_REPAIR with the operation saying why, and that enabling it
// again repairs it.
func TestPolicyNeedsRepair(t *testing.T) {
	inBubble(t, func(t *testing.T) {
		te := newBubbleEngine(t, 1000)
		insertSessions(te, "app", 3, 1)
		c := te.lookupColl("app", "sessions")
		bad := catalog.DocKey(c.Meta.ID, []byte{0x7f, 0x01})
		b := te.store.NewBatch()
		if err := b.Set(bad, []byte("not bson")); err != nil {
			t.Fatal(err)
		}
		if err := b.Commit(); err != nil {
			t.Fatal(err)
		}
		b.Close()
		op := te.waitOp(te.enable("sessions", "expireAt", 0).ID)
		if op.State != policy.NeedsRepair || !strings.Contains(op.Error, "index app.sessions for its TTL policy") {
			t.Fatalf("failed build: %+v", op)
		}
		pol, _ := te.GetPolicy(t.Context(), "sessions")
		if pol.State != policy.NeedsRepair {
			t.Fatalf("policy %+v", pol)
		}
		b = te.store.NewBatch()
		if err := b.Delete(bad); err != nil {
			t.Fatal(err)
		}
		if err := b.Commit(); err != nil {
			t.Fatal(err)
		}
		b.Close()
		if got := idsOf(te, "app", "sessions"); got != "1,2" {
			t.Fatalf("a policy that needs repair still hides expired documents: %s", got)
		}
		if re := te.waitOp(te.enable("sessions", "expireAt", 0).ID); re.State != policy.Active {
			t.Fatalf("repair: %+v", re)
		}
		te.mustCheckPolicies()
	})
}

// Ensure that policies, their operations and their sources survive a
// restart.
func TestPolicyPersists(t *testing.T) {
	inBubble(t, func(t *testing.T) {
		reg := newFakeRegistry()
		te := newBubbleEngine(t, 1000, func(o *Options) { o.Expiry = reg })
		insertSessions(te, "app", 4, 2)
		op := te.waitOp(te.enable("sessions", "expireAt", time.Minute).ID)
		te.waitOp(te.enable("carts", "at", 0).ID)
		if _, err := te.UpdatePolicy(t.Context(), policy.Update{Group: "carts", Field: "at"}); err != nil {
			t.Fatal(err)
		}
		before, _ := te.ListPolicies(t.Context())
		ops, _ := te.ListOperations(t.Context())
		te.reopen()
		syncWait()
		after, _ := te.ListPolicies(t.Context())
		if len(after) != 2 || after[0] != before[0] || after[1] != before[1] {
			t.Fatalf("policies after a restart:\n%+v\nwant\n%+v", after, before)
		}
		opsAfter, _ := te.ListOperations(t.Context())
		if len(opsAfter) != len(ops) || opsAfter[len(ops)-1] != op {
			t.Fatalf("operations after a restart: %+v", opsAfter)
		}
		if names := strings.Join(reg.names(), ","); names != "policy:sessions.expireAt" {
			t.Fatalf("sources after a restart: %s", names)
		}
		if got := idsOf(te, "app", "sessions"); got != "2,3" {
			t.Fatalf("visibility after a restart: %s", got)
		}
		te.mustCheckPolicies()
	})
}

// Ensure that collections joining the group by rename get a hidden index,
// those leaving it or dropped lose theirs with its entries, and that a
// stray hidden index record of a collection gone while down is dropped at
// Open.
func TestPolicyFollowsCatalog(t *testing.T) {
	inBubble(t, func(t *testing.T) {
		reg := newFakeRegistry()
		te := newBubbleEngine(t, 1000, func(o *Options) { o.Expiry = reg })
		te.waitOp(te.enable("sessions", "expireAt", 0).ID)
		insertSessions(te, "a", 3, 1)
		insertSessions(te, "b", 3, 1)
		te.mustInsert("a", "incoming", d("_id", 1, "expireAt", date(time.Now().Add(-time.Hour))))
		if err := te.RenameCollection(t.Context(), "a", "incoming", "c", "sessions", false); err != nil {
			t.Fatal(err)
		}
		syncWait()
		c := te.lookupColl("c", "sessions")
		if ix := te.pol.IndexOf(c.Meta.ID); ix == nil || !ix.Complete || te.policyEntries("c", "sessions") != 1 {
			t.Fatalf("renamed-in collection's index: %+v", ix)
		}
		a := te.lookupColl("a", "sessions")
		ixA := te.pol.IndexOf(a.Meta.ID)
		if err := te.RenameCollection(t.Context(), "a", "sessions", "a", "archive", false); err != nil {
			t.Fatal(err)
		}
		if te.pol.IndexOf(a.Meta.ID) != nil || countRange(t, te.store, catalog.IndexPrefix(ixA.ID)) != 0 {
			t.Fatal("a collection renamed out of the group kept its hidden index")
		}
		if got := idsOf(te, "a", "archive"); got != "0,1,2" {
			t.Fatalf("renamed-out collection: %s", got)
		}
		b := te.lookupColl("b", "sessions")
		ixB := te.pol.IndexOf(b.Meta.ID)
		if _, err := te.DropCollection(t.Context(), "b", "sessions"); err != nil {
			t.Fatal(err)
		}
		if te.pol.IndexOf(b.Meta.ID) != nil || countRange(t, te.store, catalog.IndexPrefix(ixB.ID)) != 0 {
			t.Fatal("a dropped collection's hidden index survived")
		}
		// A record left by a crash between a drop and its cleanup.
		stray := &policy.Index{CollID: 99999, ID: 99998, Group: "sessions", Field: "expireAt"}
		sb := te.store.NewBatch()
		if err := policy.PutIndex(sb, stray); err != nil {
			t.Fatal(err)
		}
		if err := sb.Set(policy.EntryKey(stray.ID, 1, []byte{1}), nil); err != nil {
			t.Fatal(err)
		}
		if err := sb.Commit(); err != nil {
			t.Fatal(err)
		}
		sb.Close()
		te.reopen()
		syncWait()
		if countRange(t, te.store, policy.IndexKey(stray.CollID)) != 0 || countRange(t, te.store, catalog.IndexPrefix(stray.ID)) != 0 {
			t.Fatal("Open kept a stray hidden index")
		}
		if n := te.policyEntries("c", "sessions"); n != 1 {
			t.Fatalf("after the restart c.sessions has %d entries", n)
		}
		te.mustCheckPolicies()
	})
}

// Ensure that a dry run reports what enabling then deletes (documents no
// rule expires yet), counted by scanning without a hidden index and from
// the index with one, and changes nothing.
func TestPolicyDryRun(t *testing.T) {
	inBubble(t, func(t *testing.T) {
		reg := newFakeRegistry()
		te := newBubbleEngine(t, 1000, func(o *Options) { o.Expiry = reg })
		now := time.Now()
		insertSessions(te, "a", 10, 4)
		insertSessions(te, "b", 5, 2)
		te.mustInsert("a", "sessions", d("_id", "text", "expireAt", "yesterday"))
		// Already expired by a TTL index: the sweeper's backlog either way.
		te.mustCreateIndexes("b", "sessions", d("key", d("createdAt", int32(1)), "name", "createdAt_1", "expireAfterSeconds", int32(0)))
		te.mustInsert("b", "sessions", d("_id", "ttl", "createdAt", date(now.Add(-time.Minute)), "expireAt", date(now.Add(-time.Hour))))
		u := policy.Update{Group: "sessions", Field: "expireAt", Enable: true, Offset: 30 * time.Minute}
		dry, err := te.DryRunPolicy(t.Context(), u)
		if err != nil {
			t.Fatal(err)
		}
		want := policy.EnableDryRun{Group: "sessions", Field: "expireAt", Offset: 30 * time.Minute, Collections: 2, Scanned: 17,
			DryRun: policy.DryRun{At: now.UTC(), WouldExpire: 6, OldestDue: now.Add(-4*time.Hour + 30*time.Minute).UTC(), NewestDue: now.Add(-time.Hour + 30*time.Minute).UTC()}}
		if dry != want {
			t.Fatalf("dry run\n%+v\nwant\n%+v", dry, want)
		}
		if pols, _ := te.ListPolicies(t.Context()); len(pols) != 0 {
			t.Fatal("a dry run created a policy")
		}
		if ops, _ := te.ListOperations(t.Context()); len(ops) != 0 {
			t.Fatal("a dry run created an operation")
		}
		if got := idsOf(te, "a", "sessions"); got != "0,1,2,3,4,5,6,7,8,9,text" {
			t.Fatalf("a dry run hid documents: %s", got)
		}
		te.waitOp(te.enable(u.Group, u.Field, u.Offset).ID)
		r, err := expiry.Drain(t.Context(), reg.get("policy:sessions.expireAt"), time.Now(), 0, 2)
		if err != nil || int64(r.Items) != dry.WouldExpire+1 {
			t.Fatalf("Drain deleted %d (%v), the dry run said %d plus the TTL index's backlog", r.Items, err, dry.WouldExpire)
		}
		// With the index: only entries a shorter offset makes due are read.
		te.mustInsert("a", "sessions", d("_id", "recent", "expireAt", date(now.Add(-10*time.Minute))))
		for offset, n := range map[time.Duration]int64{time.Hour: 0, 30 * time.Minute: 0, 0: 1} {
			got, err := te.DryRunPolicy(t.Context(), policy.Update{Group: "sessions", Field: "expireAt", Enable: true, Offset: offset})
			if err != nil || got.WouldExpire != n || got.Scanned != n {
				t.Fatalf("dry run of offset %v on the index: %+v, %v; want %d", offset, got, err, n)
			}
		}
		if _, err := te.DryRunPolicy(t.Context(), policy.Update{Group: "sessions", Field: "other", Enable: true}); !errors.Is(err, policy.ErrConflict) {
			t.Fatalf("dry run of a conflicting field: %v", err)
		}
		if _, err := te.DryRunPolicy(t.Context(), policy.Update{Group: "sessions", Field: "expireAt"}); !errors.Is(err, policy.ErrInvalid) {
			t.Fatalf("dry run of a disable: %v", err)
		}
	})
}

// Ensure that operations are listed newest first, found by id, and that
// only the most recent maxDoneOperations finished ones are kept.
func TestOperationsListAndRetention(t *testing.T) {
	inBubble(t, func(t *testing.T) {
		te := newBubbleEngine(t, 1000)
		first := te.waitOp(te.enable("sessions", "expireAt", 0).ID)
		if first.ID != "op-1" {
			t.Fatalf("first id %q", first.ID)
		}
		for i := range policy.MaxDoneOperations {
			te.enable("sessions", "expireAt", time.Duration(i+1)*time.Second)
		}
		ops, err := te.ListOperations(t.Context())
		if err != nil || len(ops) != policy.MaxDoneOperations {
			t.Fatalf("%d operations (%v), want %d", len(ops), err, policy.MaxDoneOperations)
		}
		if ops[0].ID != "op-1001" || ops[len(ops)-1].ID != "op-2" {
			t.Fatalf("newest %s, oldest %s", ops[0].ID, ops[len(ops)-1].ID)
		}
		for _, id := range []string{"op-1", "op-0", "op-x", "1", ""} {
			if _, err := te.GetOperation(t.Context(), id); !errors.Is(err, policy.ErrOperationNotFound) {
				t.Errorf("GetOperation(%q) = %v", id, err)
			}
		}
		te.reopen()
		if ops, _ := te.ListOperations(t.Context()); len(ops) != policy.MaxDoneOperations || ops[0].ID != "op-1001" {
			t.Fatalf("after a restart: %d operations, newest %s", len(ops), ops[0].ID)
		}
		if next := te.enable("sessions", "expireAt", 0); next.ID != "op-1002" {
			t.Fatalf("id after a restart %q", next.ID)
		}
	})
}

// Ensure that the worker runs only while there is work: an Engine without
// policies starts no goroutine, and the worker exits once its operation is
// done (the bubble would not end with it blocked).
func TestPolicyWorkerRunsOnlyForWork(t *testing.T) {
	inBubble(t, func(t *testing.T) {
		te := newBubbleEngine(t, 1000)
		running := te.pol.WorkerRunning
		if running() {
			t.Fatal("a worker runs without policies")
		}
		insertSessions(te, "app", 3, 1)
		te.waitOp(te.enable("sessions", "expireAt", 0).ID)
		syncWait()
		if running() {
			t.Fatal("the worker outlived its operation")
		}
		te.reopen()
		syncWait()
		if running() {
			t.Fatal("the worker runs after a restart with nothing to do")
		}
	})
}
