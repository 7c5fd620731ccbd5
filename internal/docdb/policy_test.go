package docdb

import (
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/policy"
	"github.com/mayfly/mayfly/internal/expiry"
	"github.com/mayfly/mayfly/internal/storage"
)

// Ensure that malformed groups, fields and offsets are refused with
// ErrInvalidPolicy before anything changes.
func TestValidatePolicyUpdate(t *testing.T) {
	cases := map[string]struct {
		u    policy.Update
		want string
	}{
		"empty group":      {policy.Update{Field: "at", Enable: true}, "empty collection group"},
		"dollar group":     {policy.Update{Group: "a$b", Field: "at", Enable: true}, "contains '$'"},
		"dot group":        {policy.Update{Group: ".a", Field: "at", Enable: true}, "starts with '.'"},
		"system group":     {policy.Update{Group: "system.users", Field: "at", Enable: true}, "system collection"},
		"empty field":      {policy.Update{Group: "s", Enable: true}, "empty field path"},
		"empty component":  {policy.Update{Group: "s", Field: "a..b", Enable: true}, "empty component"},
		"dollar component": {policy.Update{Group: "s", Field: "a.$b", Enable: true}, "starting with '$'"},
		"negative offset":  {policy.Update{Group: "s", Field: "at", Enable: true, Offset: -time.Second}, "negative"},
		"sub-millisecond":  {policy.Update{Group: "s", Field: "at", Enable: true, Offset: time.Microsecond}, "finer than a millisecond"},
		"huge offset":      {policy.Update{Group: "s", Field: "at", Enable: true, Offset: math.MaxInt64}, "longer than 100 years"},
	}
	te := newTestEngine(t)
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := te.UpdatePolicy(t.Context(), c.u)
			if !errors.Is(err, policy.ErrInvalid) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("UpdatePolicy(%+v) = %v, want ErrInvalidPolicy containing %q", c.u, err, c.want)
			}
		})
	}
	if ops, _ := te.ListOperations(t.Context()); len(ops) != 0 {
		t.Fatalf("refused updates left operations: %+v", ops)
	}
}

// idsOf returns the sorted _ids a find of db.coll returns, joined by
// commas.
func idsOf(te *testEngine, db, coll string) string {
	te.t.Helper()
	cur, err := te.Find(te.t.Context(), db, coll, FindRequest{})
	if err != nil {
		te.t.Fatal(err)
	}
	defer cur.Close()
	var out []string
	for {
		r, err := cur.Next(te.t.Context())
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			te.t.Fatal(err)
		}
		v := r.Lookup("_id")
		if str, ok := v.StringValueOK(); ok {
			out = append(out, str)
		} else if i, ok := v.Int32OK(); ok {
			out = append(out, fmt.Sprint(i))
		} else {
			out = append(out, v.String())
		}
	}
	sort.Strings(out)
	return strings.Join(out, ",")
}

// enable enables a policy and fails the test on error.
func (te *testEngine) enable(group, field string, offset time.Duration) policy.Operation {
	te.t.Helper()
	op, err := te.UpdatePolicy(te.t.Context(), policy.Update{Group: group, Field: field, Enable: true, Offset: offset})
	if err != nil {
		te.t.Fatal(err)
	}
	return op
}

// waitOp waits for the worker to finish operation id, advancing the
// bubble's time (the build is paced on the clock); it must run inside a
// synctest bubble.
func (te *testEngine) waitOp(id string) policy.Operation {
	te.t.Helper()
	for range 10000 {
		syncWait()
		op, err := te.GetOperation(te.t.Context(), id)
		if err != nil {
			te.t.Fatal(err)
		}
		if op.Done {
			return op
		}
		time.Sleep(time.Duration(te.pol.Pause.Load()) + time.Millisecond)
	}
	te.t.Fatalf("operation %s did not finish", id)
	return policy.Operation{}
}

// Ensure that strict visibility applies a policy to every collection of
// its group (and only those) from the moment it is enabled, reads the
// field's latest value, and that lazy visibility shows expired documents.
func TestPolicyVisibility(t *testing.T) {
	inBubble(t, func(t *testing.T) {
		te := newTestEngine(t)
		now := te.clock.Now()
		docs := []bson.D{
			d("_id", "old", "expireAt", date(now.Add(-time.Hour))),
			d("_id", "soon", "expireAt", date(now.Add(time.Hour))),
			d("_id", "arr", "expireAt", bson.A{date(now.Add(time.Hour)), date(now.Add(-time.Minute))}),
			d("_id", "null", "expireAt", nil),
			d("_id", "none"),
		}
		te.mustInsert("app", "sessions", docs...)
		te.mustInsert("other", "sessions", docs...)
		te.mustInsert("app", "carts", docs...)
		if got := idsOf(te, "app", "sessions"); got != "arr,none,null,old,soon" {
			t.Fatalf("before the policy: %s", got)
		}
		op := te.enable("sessions", "expireAt", 0)
		if op.State != policy.Creating || op.Type != policy.OpEnableTTL || op.Done {
			t.Fatalf("enable returned %+v", op)
		}
		for _, db := range []string{"app", "other"} {
			if got := idsOf(te, db, "sessions"); got != "none,null,soon" {
				t.Errorf("%s.sessions right after enabling: %s", db, got)
			}
		}
		if got := idsOf(te, "app", "carts"); got != "arr,none,null,old,soon" {
			t.Errorf("another group: %s", got)
		}
		n, err := te.Count(t.Context(), "app", "sessions", CountRequest{})
		if err != nil || n != 3 {
			t.Errorf("count = %d, %v; want 3", n, err)
		}
		// Moving the field into the future postpones expiry.
		te.mustUpdate("app", "sessions", UpdateStatement{
			Filter: d("_id", "soon"), Update: d("$set", d("expireAt", date(now.Add(2*time.Hour)))),
		})
		// Inserting a document with an _id held by an expired one replaces it.
		te.mustInsert("other", "sessions", d("_id", "old", "v", int32(2)))
		te.clock.Advance(90 * time.Minute)
		if got := idsOf(te, "app", "sessions"); got != "none,null,soon" {
			t.Errorf("app.sessions after 90 minutes: %s", got)
		}
		if got := idsOf(te, "other", "sessions"); got != "none,null,old" {
			t.Errorf("other.sessions after 90 minutes: %s", got)
		}
		te.waitOp(op.ID)
	})
}

// Ensure that lazy visibility returns documents a policy says have
// expired until they are deleted, as MongoDB and Firestore do, and that
// moving the field of such a document into the future cancels its
// deletion: the latest value counts.
func TestPolicyLazyVisibility(t *testing.T) {
	inBubble(t, func(t *testing.T) {
		reg := newFakeRegistry()
		te := newTestEngine(t, func(o *Options) { o.Visibility = VisibilityLazy; o.Expiry = reg })
		now := te.clock.Now()
		te.mustInsert("app", "sessions",
			d("_id", "old", "expireAt", date(now.Add(-time.Hour))),
			d("_id", "moved", "expireAt", date(now.Add(-time.Hour))))
		te.waitOp(te.enable("sessions", "expireAt", 0).ID)
		if got := idsOf(te, "app", "sessions"); got != "moved,old" {
			t.Fatalf("lazy visibility: %q", got)
		}
		te.mustUpdate("app", "sessions", UpdateStatement{
			Filter: d("_id", "moved"), Update: d("$set", d("expireAt", date(now.Add(time.Hour)))),
		})
		r, err := expiry.Drain(t.Context(), reg.get("policy:sessions.expireAt"), te.clock.Now(), 0, 10)
		if err != nil || r.Items != 1 {
			t.Fatalf("Drain = %+v, %v", r, err)
		}
		if got := idsOf(te, "app", "sessions"); got != "moved" {
			t.Fatalf("after reaping: %q", got)
		}
		te.mustCheckPolicies()
	})
}

// policyEntries counts the entries of a collection's hidden index.
func (te *testEngine) policyEntries(db, coll string) int {
	te.t.Helper()
	c := te.lookupColl(db, coll)
	if c == nil {
		return 0
	}
	ix := te.pol.IndexOf(c.Meta.ID)
	if ix == nil {
		return 0
	}
	lo, hi := policy.DueRange(ix.ID, math.MaxInt64)
	it, err := te.store.NewIter(lo, hi)
	if err != nil {
		te.t.Fatal(err)
	}
	defer it.Close()
	n := 0
	for ok := it.First(); ok; ok = it.Next() {
		n++
	}
	return n
}

// mustCheckPolicies runs the engine's consistency check, which covers
// the hidden indexes of TTL policies.
func (te *testEngine) mustCheckPolicies() {
	te.t.Helper()
	if err := te.Check(te.t.Context()); err != nil {
		te.t.Fatal(err)
	}
}

// Ensure that Check (what `mayfly check` runs) finds a hidden index entry
// that no document calls for.
func TestCheckFindsStrayPolicyEntry(t *testing.T) {
	inBubble(t, func(t *testing.T) {
		te := newTestEngine(t, func(o *Options) { o.Expiry = newFakeRegistry() })
		now := te.clock.Now()
		te.mustInsert("a", "sessions", d("_id", 1, "expireAt", date(now.Add(time.Hour))))
		te.waitOp(te.enable("sessions", "expireAt", time.Minute).ID)
		te.mustCheckPolicies()
		ix := te.pol.IndexOf(te.lookupColl("a", "sessions").Meta.ID)
		stray := policy.EntryKey(ix.ID, now.UnixMilli(), []byte("stray"))
		write := func(f func(b *storage.Batch) error) {
			b := te.store.NewBatch()
			if err := f(b); err != nil {
				t.Fatal(err)
			}
			if err := b.Commit(); err != nil {
				t.Fatal(err)
			}
		}
		write(func(b *storage.Batch) error { return b.Set(stray, nil) })
		if err := te.Check(t.Context()); err == nil || !strings.Contains(err.Error(), "stray entry") {
			t.Fatalf("Check = %v, want a stray entry error", err)
		}
		write(func(b *storage.Batch) error { return b.Delete(stray) }) // the harness checks again at the end
	})
}

// Ensure that enabling a policy builds a hidden index in every collection
// of the group, reports its progress, registers one source that deletes
// exactly the due documents, and that the write path keeps the index exact
// through inserts, updates, replacements and deletes.
func TestPolicyEnableBuildsAndReaps(t *testing.T) {
	inBubble(t, func(t *testing.T) {
		reg := newFakeRegistry()
		te := newTestEngine(t, func(o *Options) { o.Expiry = reg })
		now := te.clock.Now()
		for i, db := range []string{"a", "b"} {
			te.mustInsert(db, "sessions",
				d("_id", 1, "expireAt", date(now.Add(-time.Duration(i+1)*time.Hour))),
				d("_id", 2, "expireAt", date(now.Add(time.Hour))),
				d("_id", 3, "expireAt", "never"),
			)
		}
		te.mustInsert("a", "carts", d("_id", 1, "expireAt", date(now.Add(-time.Hour))))
		op := te.enable("sessions", "expireAt", 10*time.Minute)
		if op.Progress.DocumentsEstimate != 6 {
			t.Errorf("estimate %d, want 6", op.Progress.DocumentsEstimate)
		}
		done := te.waitOp(op.ID)
		want := policy.OperationProgress{DocumentsScanned: 6, DocumentsEstimate: 6, ExpiredFound: 2}
		if done.State != policy.Active || done.Progress != want || done.End.IsZero() || done.Error != "" {
			t.Fatalf("finished operation %+v, want ACTIVE with %+v", done, want)
		}
		pol, err := te.GetPolicy(t.Context(), "sessions")
		if err != nil || pol.State != policy.Active || pol.Indexed != 2 || pol.Collections != 2 || pol.Operation != op.ID || pol.Offset != 10*time.Minute {
			t.Fatalf("policy %+v, %v", pol, err)
		}
		if names := strings.Join(reg.names(), ","); names != "policy:sessions.expireAt" {
			t.Fatalf("sources %s", names)
		}
		if te.policyEntries("a", "sessions") != 2 || te.policyEntries("a", "carts") != 0 {
			t.Fatalf("hidden entries: sessions %d, carts %d", te.policyEntries("a", "sessions"), te.policyEntries("a", "carts"))
		}
		te.mustCheckPolicies()

		src := reg.get("policy:sessions.expireAt")
		due, ok, err := src.NextDue(t.Context())
		if wantDue := now.Add(-2*time.Hour + 10*time.Minute); err != nil || !ok || !due.Equal(wantDue) {
			t.Fatalf("NextDue = %v, %v, %v; want %v", due, ok, err, wantDue)
		}
		n, oldest, newest, err := src.(expiry.Counter).CountDue(t.Context(), te.clock.Now())
		if err != nil || n != 2 || !oldest.Equal(now.Add(-110*time.Minute)) || !newest.Equal(now.Add(-50*time.Minute)) {
			t.Fatalf("CountDue = %d %v %v %v", n, oldest, newest, err)
		}
		r, err := expiry.Drain(t.Context(), src, te.clock.Now(), 0, 1)
		if err != nil || r.Items != 2 || r.More || len(r.Due) != 2 || r.Keys != 4 {
			t.Fatalf("Drain = %+v, %v", r, err)
		}
		if got := idsOf(te, "a", "sessions") + "/" + idsOf(te, "b", "sessions"); got != "2,3/2,3" {
			t.Fatalf("after reaping: %s", got)
		}
		if len(te.storedDocs("a", "carts")) != 1 {
			t.Fatal("a collection of another group was reaped")
		}

		// The write path keeps the index exact.
		te.mustInsert("a", "sessions", d("_id", 4, "expireAt", bson.A{date(now.Add(2 * time.Hour)), date(now.Add(time.Hour))}))
		te.mustUpdate("a", "sessions", UpdateStatement{Filter: d("_id", 2), Update: d("$set", d("expireAt", date(now.Add(-time.Hour))))})
		te.mustUpdate("a", "sessions", UpdateStatement{Filter: d("_id", 3), Update: d("$set", d("expireAt", date(now)))})
		te.mustUpdate("b", "sessions", UpdateStatement{Filter: d("_id", 2), Update: d("$unset", d("expireAt", ""))})
		te.mustUpdate("b", "sessions", UpdateStatement{Filter: d("_id", 3), Update: d("_id", 3, "expireAt", date(now.Add(time.Minute)))})
		te.mustUpdate("b", "sessions", UpdateStatement{Filter: d("_id", 9), Update: d("$set", d("expireAt", date(now))), Upsert: true})
		if _, err := te.Delete(t.Context(), "a", "sessions", DeleteRequest{Statements: []DeleteStatement{{Filter: d("_id", 4)}}, Ordered: true}); err != nil {
			t.Fatal(err)
		}
		te.mustCheckPolicies()
		if te.policyEntries("a", "sessions") != 2 || te.policyEntries("b", "sessions") != 2 {
			t.Fatalf("entries after writes: a %d, b %d", te.policyEntries("a", "sessions"), te.policyEntries("b", "sessions"))
		}
		if len(reg.wakes) == 0 {
			t.Fatal("writes of due times never woke the sweeper")
		}

		// A collection created later in the group gets a complete index at once.
		te.mustInsert("c", "sessions", d("_id", 1, "expireAt", date(now.Add(-time.Hour))))
		c := te.lookupColl("c", "sessions")
		if ix := te.pol.IndexOf(c.Meta.ID); ix == nil || !ix.Complete || te.policyEntries("c", "sessions") != 1 {
			t.Fatalf("new collection's index %+v", ix)
		}
		te.clock.Advance(time.Hour)
		r, err = expiry.Drain(t.Context(), src, te.clock.Now(), 0, 100)
		if err != nil || r.Items != 5 {
			t.Fatalf("second Drain = %+v, %v; want 5 deleted", r, err)
		}
		te.mustCheckPolicies()
		if got := idsOf(te, "a", "sessions") + "/" + idsOf(te, "b", "sessions") + "/" + idsOf(te, "c", "sessions"); got != "/2/" {
			t.Fatalf("after the second Drain: %s", got)
		}
	})
}

// Ensure that a group has at most one TTL field and the catalog at most
// MaxPolicies enabled policies, with errors that say so, and that disable
// must name the policy's field.
func TestPolicyLimits(t *testing.T) {
	inBubble(t, func(t *testing.T) {
		te := newTestEngine(t)
		ctx := t.Context()
		te.waitOp(te.enable("sessions", "expireAt", 0).ID)
		_, err := te.UpdatePolicy(ctx, policy.Update{Group: "sessions", Field: "other", Enable: true})
		if !errors.Is(err, policy.ErrConflict) || !strings.Contains(err.Error(), `already has a TTL policy on field "expireAt"`) {
			t.Fatalf("second field: %v", err)
		}
		for _, u := range []policy.Update{{Group: "nope", Field: "expireAt"}, {Group: "sessions", Field: "other"}} {
			if _, err := te.UpdatePolicy(ctx, u); !errors.Is(err, policy.ErrNotFound) {
				t.Fatalf("disable %+v: %v", u, err)
			}
		}
		for i := 1; i < policy.MaxPolicies; i++ {
			te.enable("g"+strconv.Itoa(i), "at", 0)
		}
		_, err = te.UpdatePolicy(ctx, policy.Update{Group: "one-too-many", Field: "at", Enable: true})
		if !errors.Is(err, policy.ErrTooMany) || !strings.Contains(err.Error(), "the limit is 1000 TTL field configurations") {
			t.Fatalf("policy 1001: %v", err)
		}
		// Changing an enabled policy's offset is not a new configuration.
		if _, err := te.UpdatePolicy(ctx, policy.Update{Group: "sessions", Field: "expireAt", Enable: true, Offset: time.Hour}); err != nil {
			t.Fatalf("offset change at the limit: %v", err)
		}
		if _, err := te.UpdatePolicy(ctx, policy.Update{Group: "sessions", Field: "expireAt"}); err != nil {
			t.Fatal(err)
		}
		if _, err := te.UpdatePolicy(ctx, policy.Update{Group: "one-too-many", Field: "at", Enable: true}); err != nil {
			t.Fatalf("after disabling one: %v", err)
		}
		syncWait()
	})
}

// inBubble runs f in a synctest bubble.
func inBubble(t *testing.T, f func(t *testing.T)) { synctest.Test(t, f) }

// syncWait waits until every other goroutine of the bubble is blocked.
func syncWait() { synctest.Wait() }
