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

	"github.com/mayfly/mayfly/internal/expiry"
	"github.com/mayfly/mayfly/internal/storage"
)

// Ensure that offsets parse as Go durations plus days and weeks, refuse
// negative, malformed and huge values, and format back.
func TestParseOffset(t *testing.T) {
	day := 24 * time.Hour
	cases := []struct {
		in      string
		want    time.Duration
		wantErr string
	}{
		{"0", 0, ""},
		{"0s", 0, ""},
		{"90s", 90 * time.Second, ""},
		{"1h30m", 90 * time.Minute, ""},
		{"7d", 7 * day, ""},
		{"1w2d12h", 9*day + 12*time.Hour, ""},
		{" 2d ", 2 * day, ""},
		{"1.5h", 90 * time.Minute, ""},
		{"", 0, "empty expiration offset"},
		{"-1h", 0, "is negative"},
		{"7days", 0, "want a duration such as"},
		{"d", 0, "want a duration such as"},
		{"36501d", 0, "longer than 100 years"},
		{"99999999999999999999d", 0, "longer than 100 years"},
	}
	for _, c := range cases {
		t.Run(c.in, func(t *testing.T) {
			got, err := ParseOffset(c.in)
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) || !errors.Is(err, ErrInvalidPolicy) {
					t.Fatalf("ParseOffset(%q) = %v, %v; want error containing %q", c.in, got, err, c.wantErr)
				}
				return
			}
			if err != nil || got != c.want {
				t.Fatalf("ParseOffset(%q) = %v, %v; want %v", c.in, got, err, c.want)
			}
			back, err := ParseOffset(FormatOffset(got))
			if err != nil || back != got {
				t.Fatalf("round trip of %v through %q = %v, %v", got, FormatOffset(got), back, err)
			}
		})
	}
	for d, want := range map[time.Duration]string{0: "0s", 90 * time.Second: "1m30s", 7 * day: "7d", 2*day + 3*time.Hour: "2d3h0m0s"} {
		if got := FormatOffset(d); got != want {
			t.Errorf("FormatOffset(%v) = %q, want %q", d, got, want)
		}
	}
}

// Ensure that malformed groups, fields and offsets are refused with
// ErrInvalidPolicy before anything changes.
func TestValidatePolicyUpdate(t *testing.T) {
	cases := map[string]struct {
		u    PolicyUpdate
		want string
	}{
		"empty group":      {PolicyUpdate{Field: "at", Enable: true}, "empty collection group"},
		"dollar group":     {PolicyUpdate{Group: "a$b", Field: "at", Enable: true}, "contains '$'"},
		"dot group":        {PolicyUpdate{Group: ".a", Field: "at", Enable: true}, "starts with '.'"},
		"system group":     {PolicyUpdate{Group: "system.users", Field: "at", Enable: true}, "system collection"},
		"empty field":      {PolicyUpdate{Group: "s", Enable: true}, "empty field path"},
		"empty component":  {PolicyUpdate{Group: "s", Field: "a..b", Enable: true}, "empty component"},
		"dollar component": {PolicyUpdate{Group: "s", Field: "a.$b", Enable: true}, "starting with '$'"},
		"negative offset":  {PolicyUpdate{Group: "s", Field: "at", Enable: true, Offset: -time.Second}, "negative"},
		"sub-millisecond":  {PolicyUpdate{Group: "s", Field: "at", Enable: true, Offset: time.Microsecond}, "finer than a millisecond"},
		"huge offset":      {PolicyUpdate{Group: "s", Field: "at", Enable: true, Offset: math.MaxInt64}, "longer than 100 years"},
	}
	te := newTestEngine(t)
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := te.UpdatePolicy(t.Context(), c.u)
			if !errors.Is(err, ErrInvalidPolicy) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("UpdatePolicy(%+v) = %v, want ErrInvalidPolicy containing %q", c.u, err, c.want)
			}
		})
	}
	if ops, _ := te.ListOperations(t.Context()); len(ops) != 0 {
		t.Fatalf("refused updates left operations: %+v", ops)
	}
}

// Ensure that the rule reads the field as Firestore and TTL indexes do: a
// Date expires, an array at its earliest Date, and null, missing or other
// types never.
func TestPolicyRuleDueTime(t *testing.T) {
	base := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	ms := base.UnixMilli()
	hour := time.Hour.Milliseconds()
	cases := []struct {
		name  string
		field string
		doc   bson.D
		due   int64
		ok    bool
	}{
		{"date", "at", d("at", date(base)), ms + hour, true},
		{"array earliest", "at", d("at", bson.A{date(base.Add(time.Hour)), date(base), "x"}), ms + hour, true},
		{"array without dates", "at", d("at", bson.A{int32(1), "x"}), 0, false},
		{"empty array", "at", d("at", bson.A{}), 0, false},
		{"null", "at", d("at", nil), 0, false},
		{"missing", "at", d("other", date(base)), 0, false},
		{"string", "at", d("at", "2026-03-01T12:00:00Z"), 0, false},
		{"number", "at", d("at", int64(ms)), 0, false},
		{"timestamp", "at", d("at", bson.Timestamp{T: uint32(base.Unix())}), 0, false},
		{"nested", "meta.at", d("meta", d("at", date(base))), ms + hour, true},
		{"array of subdocuments", "m.at", d("m", bson.A{d("at", date(base.Add(2*time.Hour))), d("at", date(base))}), ms + hour, true},
		{"far future saturates", "at", d("at", bson.DateTime(math.MaxInt64)), math.MaxInt64, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := newPolicyRule("g", c.field, hour)
			due, ok := r.dueTime(c.doc)
			if ok != c.ok || due != c.due {
				t.Fatalf("dueTime = %d, %v; want %d, %v", due, ok, c.due, c.ok)
			}
			if got := r.expired(c.doc, ms+hour); got != (c.ok && c.due <= ms+hour) {
				t.Fatalf("expired at due time = %v", got)
			}
		})
	}
	var nilRule *policyRule
	if nilRule.expired(d("at", date(base)), math.MaxInt64) {
		t.Fatal("a nil rule expired a document")
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
func (te *testEngine) enable(group, field string, offset time.Duration) Operation {
	te.t.Helper()
	op, err := te.UpdatePolicy(te.t.Context(), PolicyUpdate{Group: group, Field: field, Enable: true, Offset: offset})
	if err != nil {
		te.t.Fatal(err)
	}
	return op
}

// waitOp waits for the worker to finish operation id, advancing the
// bubble's time (the build is paced on the clock); it must run inside a
// synctest bubble.
func (te *testEngine) waitOp(id string) Operation {
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
		time.Sleep(time.Duration(te.pol.pause.Load()) + time.Millisecond)
	}
	te.t.Fatalf("operation %s did not finish", id)
	return Operation{}
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
		if op.State != PolicyCreating || op.Type != OpEnableTTL || op.Done {
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
	ix := te.pol.indexOf(c.meta.id)
	if ix == nil {
		return 0
	}
	lo, hi := policyDueRange(ix.ixID, math.MaxInt64)
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
		ix := te.pol.indexOf(te.lookupColl("a", "sessions").meta.id)
		stray := policyEntryKey(ix.ixID, now.UnixMilli(), []byte("stray"))
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
		want := OperationProgress{DocumentsScanned: 6, DocumentsEstimate: 6, ExpiredFound: 2}
		if done.State != PolicyActive || done.Progress != want || done.End.IsZero() || done.Error != "" {
			t.Fatalf("finished operation %+v, want ACTIVE with %+v", done, want)
		}
		pol, err := te.GetPolicy(t.Context(), "sessions")
		if err != nil || pol.State != PolicyActive || pol.Indexed != 2 || pol.Collections != 2 || pol.Operation != op.ID || pol.Offset != 10*time.Minute {
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
		if ix := te.pol.indexOf(c.meta.id); ix == nil || !ix.complete || te.policyEntries("c", "sessions") != 1 {
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
		_, err := te.UpdatePolicy(ctx, PolicyUpdate{Group: "sessions", Field: "other", Enable: true})
		if !errors.Is(err, ErrPolicyConflict) || !strings.Contains(err.Error(), `already has a TTL policy on field "expireAt"`) {
			t.Fatalf("second field: %v", err)
		}
		for _, u := range []PolicyUpdate{{Group: "nope", Field: "expireAt"}, {Group: "sessions", Field: "other"}} {
			if _, err := te.UpdatePolicy(ctx, u); !errors.Is(err, ErrPolicyNotFound) {
				t.Fatalf("disable %+v: %v", u, err)
			}
		}
		for i := 1; i < MaxPolicies; i++ {
			te.enable("g"+strconv.Itoa(i), "at", 0)
		}
		_, err = te.UpdatePolicy(ctx, PolicyUpdate{Group: "one-too-many", Field: "at", Enable: true})
		if !errors.Is(err, ErrTooManyPolicies) || !strings.Contains(err.Error(), "the limit is 1000 TTL field configurations") {
			t.Fatalf("policy 1001: %v", err)
		}
		// Changing an enabled policy's offset is not a new configuration.
		if _, err := te.UpdatePolicy(ctx, PolicyUpdate{Group: "sessions", Field: "expireAt", Enable: true, Offset: time.Hour}); err != nil {
			t.Fatalf("offset change at the limit: %v", err)
		}
		if _, err := te.UpdatePolicy(ctx, PolicyUpdate{Group: "sessions", Field: "expireAt"}); err != nil {
			t.Fatal(err)
		}
		if _, err := te.UpdatePolicy(ctx, PolicyUpdate{Group: "one-too-many", Field: "at", Enable: true}); err != nil {
			t.Fatalf("after disabling one: %v", err)
		}
		syncWait()
	})
}

// inBubble runs f in a synctest bubble.
func inBubble(t *testing.T, f func(t *testing.T)) { synctest.Test(t, f) }

// syncWait waits until every other goroutine of the bubble is blocked.
func syncWait() { synctest.Wait() }
