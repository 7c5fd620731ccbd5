package docdb

import (
	"context"
	"io"
	"log/slog"
	"math"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/catalog"
	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
	"github.com/mayfly/mayfly/internal/storage"
)

// fakeClock is a settable clock for Options.Now.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func newFakeClock() *fakeClock {
	return &fakeClock{now: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// testEngine opens an Engine on an in-memory store.
type testEngine struct {
	*Engine
	t     *testing.T
	store *storage.Store
	clock *fakeClock
}

func newTestEngine(t *testing.T, mods ...func(*Options)) *testEngine {
	t.Helper()
	st, err := storage.Open(storage.Options{Dir: "mem", InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	clock := newFakeClock()
	opts := Options{Store: st, Now: clock.Now, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
	for _, m := range mods {
		m(&opts)
	}
	e, err := Open(opts)
	if err != nil {
		t.Fatal(err)
	}
	te := &testEngine{Engine: e, t: t, store: st, clock: clock}
	t.Cleanup(func() {
		e := te.Engine
		if err := te.Check(context.Background()); err != nil {
			t.Errorf("consistency check: %v", err)
		}
		e.Close()
		st.Close()
	})
	return te
}

// reopen closes the Engine and opens a new one on the same store, to test
// that the catalog and counters persist.
func (te *testEngine) reopen() {
	te.t.Helper()
	te.Engine.Close()
	e, err := Open(te.Engine.opts)
	if err != nil {
		te.t.Fatal(err)
	}
	te.Engine = e
}

// raw marshals a document.
func raw(t testing.TB, d bson.D) bson.Raw {
	t.Helper()
	b, err := bson.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// mustInsert inserts documents and fails the test on any error.
func (te *testEngine) mustInsert(db, coll string, docs ...bson.D) {
	te.t.Helper()
	var raws []bson.Raw
	for _, d := range docs {
		raws = append(raws, raw(te.t, d))
	}
	res, err := te.Insert(te.t.Context(), db, coll, InsertRequest{Documents: raws, Ordered: true})
	if err != nil {
		te.t.Fatal(err)
	}
	if len(res.WriteErrors) > 0 {
		te.t.Fatalf("insert: %v", res.WriteErrors[0].Err)
	}
}

// wantCode asserts that err is a *mongoerr.Error with code and, when msg is
// not empty, that message.
func wantCode(t testing.TB, err error, code mongoerr.Code, msg string) *mongoerr.Error {
	t.Helper()
	if err == nil {
		t.Fatalf("got no error, want code %d", code)
	}
	me, ok := mongoerr.As(err)
	if !ok {
		t.Fatalf("got %v (%T), want code %d", err, err, code)
	}
	if me.Code != code {
		t.Fatalf("got code %d (%s), want %d", me.Code, me.Message, code)
	}
	if msg != "" && me.Message != msg {
		t.Fatalf("got message\n  %q\nwant\n  %q", me.Message, msg)
	}
	return me
}

// storedDocs returns the stored documents of db.coll in storage order,
// bypassing every read path.
func (te *testEngine) storedDocs(db, coll string) []bson.Raw {
	te.t.Helper()
	c := te.lookupColl(db, coll)
	if c == nil {
		return nil
	}
	p := catalog.DocPrefix(c.Meta.ID)
	it, err := te.store.NewIter(p, storage.PrefixEnd(p))
	if err != nil {
		te.t.Fatal(err)
	}
	defer it.Close()
	var out []bson.Raw
	for ok := it.First(); ok; ok = it.Next() {
		out = append(out, append(bson.Raw(nil), it.Value()...))
	}
	return out
}

func nan() float64 { return math.NaN() }

func ptr[T any](v T) *T { return &v }

// modTTL is a collMod that sets the TTL of the index named name.
func modTTL(name string, n int64, dryRun bool) CollModRequest {
	return CollModRequest{Index: &CollModIndex{Name: name, ExpireAfterSeconds: &n}, DryRun: dryRun}
}

// modHidden is a collMod that hides or shows the index named name.
func modHidden(name string, hidden, dryRun bool) CollModRequest {
	return CollModRequest{Index: &CollModIndex{Name: name, Hidden: &hidden}, DryRun: dryRun}
}

// clusteredTTL is a create of a clustered collection with a TTL.
func clusteredTTL(n int64) CreateCollectionRequest {
	return CreateCollectionRequest{Clustered: true, ExpireAfterSeconds: &n}
}
