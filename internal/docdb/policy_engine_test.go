package docdb

import (
	"context"
	"testing"
	"time"

	"github.com/mayfly/mayfly/internal/expiry"
)

// newSweptEngine opens a test engine on the real expiry engine, both on
// the bubble's clock, and runs the sweeper until the test ends.
func newSweptEngine(t *testing.T, params func(*expiry.Params)) (*testEngine, *expiry.Engine) {
	t.Helper()
	cfg := expiry.DefaultConfig()
	cfg.Backoff.Disabled = true
	if params != nil {
		params(&cfg.Params)
	}
	eng, err := expiry.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	te := newBubbleEngine(t, 1000, func(o *Options) { o.Expiry = eng })
	done := make(chan error, 1)
	go func() { done <- eng.Run(context.Background()) }()
	t.Cleanup(func() {
		eng.Close()
		if err := <-done; err != nil {
			t.Errorf("sweeper: %v", err)
		}
	})
	syncWait()
	return te, eng
}

// Ensure that a policy and a TTL index on the same documents are two
// sources on one engine and that whichever is due first deletes, each
// deletion counted and its lag measured under its own source.
func TestPolicyAndTTLIndexShareTheEngine(t *testing.T) {
	inBubble(t, func(t *testing.T) {
		te, eng := newSweptEngine(t, nil)
		now := time.Now()
		te.mustCreateIndexes("app", "sessions", d("key", d("createdAt", int32(1)), "name", "createdAt_1", "expireAfterSeconds", int32(3600)))
		te.mustInsert("app", "sessions",
			// The policy is due first (in 10 minutes; the index in 30).
			d("_id", "policy-first", "createdAt", date(now.Add(-30*time.Minute)), "expireAt", date(now.Add(10*time.Minute))),
			// The index is due first (in 5 minutes; the policy in an hour).
			d("_id", "index-first", "createdAt", date(now.Add(-55*time.Minute)), "expireAt", date(now.Add(time.Hour))),
		)
		te.waitOp(te.enable("sessions", "expireAt", 0).ID)
		time.Sleep(6 * time.Minute)
		syncWait()
		if got := len(te.storedDocs("app", "sessions")); got != 1 {
			t.Fatalf("after 6 minutes %d documents are stored, want 1", got)
		}
		time.Sleep(5 * time.Minute)
		syncWait()
		if got := len(te.storedDocs("app", "sessions")); got != 0 {
			t.Fatalf("after 11 minutes %d documents are stored, want 0", got)
		}
		st := eng.Stats()
		pol, ok1 := st.Source("policy:sessions.expireAt")
		idx, ok2 := st.Source("ttl_index:app.sessions.createdAt_1")
		if !ok1 || !ok2 || pol.DeletedItems != 1 || idx.DeletedItems != 1 {
			t.Fatalf("deletions: policy %+v, index %+v", pol, idx)
		}
		if pol.Kind != expiry.KindPolicy || pol.Lag.Count != 1 || pol.Lag.Max > 20*time.Millisecond {
			t.Fatalf("policy source kind %s, lag count %d max %v", pol.Kind, pol.Lag.Count, pol.Lag.Max)
		}
		te.mustCheckPolicies()
	})
}

// Ensure that enabling a policy on a collection full of expired documents
// deletes them through the engine in bounded batches under its rate limit,
// never in one storm, and that the operation counts what it deleted.
func TestPolicyBacklogIsRateLimited(t *testing.T) {
	inBubble(t, func(t *testing.T) {
		te, eng := newSweptEngine(t, func(p *expiry.Params) {
			p.BatchSize = 100
			p.MaxDeletesPerSecond = 1000
		})
		insertSessions(te, "app", 3000, 2500)
		te.pol.Chunk.Store(500)
		start := time.Now()
		op := te.enable("sessions", "expireAt", 0)
		syncWait()
		if got := len(te.storedDocs("app", "sessions")); got < 2000 {
			t.Fatalf("%d documents left right after enabling: the backlog went in a storm", got)
		}
		done := te.waitOp(op.ID)
		if done.Progress.ExpiredFound != 2500 {
			t.Fatalf("operation %+v", done)
		}
		for range 100 {
			if len(te.storedDocs("app", "sessions")) == 500 {
				break
			}
			time.Sleep(100 * time.Millisecond)
			syncWait()
		}
		took := time.Since(start)
		if got := len(te.storedDocs("app", "sessions")); got != 500 {
			t.Fatalf("%d documents left, want 500", got)
		}
		if took < 2*time.Second {
			t.Fatalf("2,500 deletions took %v at 1,000 a second", took)
		}
		st := eng.Stats()
		src, _ := st.Source("policy:sessions.expireAt")
		if src.DeletedItems != 2500 || src.Reaps < 25 || src.Lag.Count != 2500 {
			t.Fatalf("source stats: deleted %d in %d reaps, lag count %d", src.DeletedItems, src.Reaps, src.Lag.Count)
		}
		if done.Progress.Deleted == 0 || done.Progress.Deleted > 2500 {
			t.Fatalf("operation counted %d deletions", done.Progress.Deleted)
		}
		if eng.EstimateDuration(1000) < 500*time.Millisecond {
			t.Fatalf("EstimateDuration(1000) = %v at 1,000 a second", eng.EstimateDuration(1000))
		}
		te.mustCheckPolicies()
	})
}
