package docdb

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/catalog"
	"github.com/mayfly/mayfly/internal/docdb/change"
	"github.com/mayfly/mayfly/internal/docdb/stored"
	"github.com/mayfly/mayfly/internal/storage"
)

// eventHook is a change.Hook that records every change it is told of and
// writes one durable event per change into the write's batch, as a change
// stream would; it fails every change while fail is set.
type eventHook struct {
	changes []string
	seq     int
	fail    error
}

func (h *eventHook) DocumentChanged(b *change.Batch, m *catalog.CollMeta, prev, next *stored.Doc) error {
	if h.fail != nil {
		return h.fail
	}
	kind, sd := "replace", next
	switch {
	case prev == nil:
		kind = "insert"
	case next == nil:
		kind, sd = "delete", prev
	}
	h.changes = append(h.changes, fmt.Sprintf("%s %s.%s %v", kind, m.DB, m.Name, sd.Doc[0].Value))
	h.seq++
	return b.Set([]byte{storage.PrefixEvents, byte(h.seq)}, []byte(kind))
}

// events returns the kinds of the committed events, in order.
func (te *testEngine) events() string {
	te.t.Helper()
	// The test hook's keys are one byte after the prefix, below the change
	// log's keyspace (prefix and 'm').
	lo := []byte{storage.PrefixEvents}
	it, err := te.store.NewIter(lo, []byte{storage.PrefixEvents, 'm'})
	if err != nil {
		te.t.Fatal(err)
	}
	defer it.Close()
	var out []string
	for ok := it.First(); ok; ok = it.Next() {
		out = append(out, string(it.Value()))
	}
	return strings.Join(out, " ")
}

// Ensure that a write hook is told of every insert, replace and delete with
// the collection's metadata and the documents before and after, that what
// it writes commits with the document, and that its error aborts the write.
func TestWriteHookFollowsEveryChange(t *testing.T) {
	te := newTestEngine(t)
	h := &eventHook{}
	te.hooks = append(te.hooks, h)
	ctx := t.Context()
	te.mustInsert("app", "c", d("_id", int32(1), "n", int32(1)), d("_id", int32(2), "n", int32(2)))
	te.mustUpdate("app", "c", UpdateStatement{Filter: d("_id", int32(1)), Update: d("$set", d("n", int32(10)))})
	if _, err := te.Delete(ctx, "app", "c", DeleteRequest{Statements: []DeleteStatement{{Filter: d("_id", int32(2)), Limit: 1}}}); err != nil {
		t.Fatal(err)
	}
	want := "insert app.c 1,insert app.c 2,replace app.c 1,delete app.c 2"
	if got := strings.Join(h.changes, ","); got != want {
		t.Fatalf("hook saw %s, want %s", got, want)
	}
	if got := te.events(); got != "insert insert replace delete" {
		t.Fatalf("committed events %q", got)
	}

	refused := errors.New("hook refused")
	h.fail = refused
	res, err := te.Insert(ctx, "app", "c", InsertRequest{Documents: []bson.Raw{raw(t, d("_id", int32(3)))}, Ordered: true})
	if !errors.Is(err, refused) && (len(res.WriteErrors) == 0 || !errors.Is(res.WriteErrors[0].Err, refused)) {
		t.Fatalf("an insert whose hook failed gave %+v, %v", res, err)
	}
	h.fail = nil
	if got, want := te.mustFind("app", "c", FindRequest{}), fmtDoc(d("_id", int32(1), "n", int32(10))); got != want {
		t.Fatalf("documents after a refused insert: %s, want %s", got, want)
	}
	if got := te.events(); got != "insert insert replace delete" {
		t.Fatalf("a refused write left events: %q", got)
	}
}
