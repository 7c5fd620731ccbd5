package docdb

import (
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/catalog"
	"github.com/mayfly/mayfly/internal/expiry"
	"github.com/mayfly/mayfly/internal/storage"
)

// storedSpans returns the span aggregates of app.c by span start.
func (te *testEngine) storedSpans(t *testing.T) map[int64]catalog.SpanCount {
	t.Helper()
	c := te.lookupColl("app", "c")
	lo, _ := catalog.SpanKeysBelow(c.Meta.ID, 0)
	it, err := te.store.NewIter(lo, storage.PrefixEnd(catalog.SpansMarkerKey(c.Meta.ID)))
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	out := map[int64]catalog.SpanCount{}
	for ok := it.First(); ok; ok = it.Next() {
		start, sc, err := catalog.DecodeSpan(it.Key(), it.Value())
		if err != nil {
			t.Fatal(err)
		}
		out[start] = sc
	}
	return out
}

// TestClusteredSpanAggregatesFollowWrites checks that inserts, updates
// that grow a document, deletes and a transaction's writes keep the span
// aggregates equal to what the documents call for (Check compares them),
// and that dropping the collection removes them.
func TestClusteredSpanAggregatesFollowWrites(t *testing.T) {
	te := newTestEngine(t)
	ctx := t.Context()
	// No TTL: the dates are long past, and expired documents match nothing.
	if err := te.CreateCollection(ctx, "app", "c", CreateCollectionRequest{Clustered: true}); err != nil {
		t.Fatal(err)
	}
	base := time.UnixMilli(1_700_000_000_000)
	var docs []bson.D
	for i := range 50 {
		// 10 ms apart: five spans of ten documents.
		docs = append(docs, d("_id", date(base.Add(time.Duration(i)*10*time.Millisecond)), "v", int32(i)))
	}
	docs = append(docs, d("_id", "not a date"))
	te.mustInsert("app", "c", docs...)
	spans := te.storedSpans(t)
	if len(spans) != 5 || spans[base.UnixMilli()].Docs != 10 {
		t.Fatalf("spans after insert: %+v", spans)
	}
	if err := te.Check(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := te.Update(ctx, "app", "c", UpdateRequest{Statements: []UpdateStatement{{
		Filter: d("v", d("$lt", int32(15))), Update: d("$set", d("pad", strings.Repeat("x", 200))), Multi: true,
	}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := te.Delete(ctx, "app", "c", DeleteRequest{Statements: []DeleteStatement{{Filter: d("v", d("$gte", int32(40)))}}}); err != nil {
		t.Fatal(err)
	}
	txn := te.BeginTxn()
	tctx := WithTxn(ctx, txn)
	if _, err := te.Insert(tctx, "app", "c", InsertRequest{Documents: []bson.Raw{raw(t, d("_id", date(base.Add(-time.Second))))}}); err != nil {
		t.Fatal(err)
	}
	// A write outside commits between the transaction's snapshot and its
	// commit, in the span the transaction writes to: the commit adds to it.
	te.mustInsert("app", "c", d("_id", date(base.Add(-time.Second+time.Millisecond))))
	if err := txn.Commit(); err != nil {
		t.Fatal(err)
	}
	spans = te.storedSpans(t)
	if got := spans[base.Add(-time.Second).UnixMilli()].Docs; got != 2 {
		t.Fatalf("span of the transaction's write holds %d, want 2: %+v", got, spans)
	}
	if len(spans) != 5 {
		t.Fatalf("spans after the deletes: %+v", spans)
	}
	if err := te.Check(ctx); err != nil {
		t.Fatal(err)
	}
	id := te.lookupColl("app", "c").Meta.ID
	if _, err := te.DropCollection(ctx, "app", "c"); err != nil {
		t.Fatal(err)
	}
	p := catalog.SpansMarkerKey(id)
	it, err := te.store.NewIter(p, storage.PrefixEnd(p))
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	if it.First() {
		t.Fatalf("span key %x left after the drop", it.Key())
	}
}

// TestClusteredReapCountsWholeSpansByAggregates checks that a reap whose
// cut-off falls inside a span counts the spans before it by their
// aggregates, reads only the documents of the span at the cut-off, and
// leaves that span's aggregate with the documents not yet due.
func TestClusteredReapCountsWholeSpansByAggregates(t *testing.T) {
	reg := newFakeRegistry()
	te := newTestEngine(t, func(o *Options) { o.Expiry = reg })
	ctx := t.Context()
	if err := te.CreateCollection(ctx, "app", "c", clusteredTTL(60)); err != nil {
		t.Fatal(err)
	}
	// The clock's now minus the TTL, moved to 30 ms into a span: the
	// cut-off.
	now := te.clock.Now()
	cutoff := now.UnixMilli() - 60_000
	edge := catalog.SpanStart(cutoff)
	now = now.Add(time.Duration(edge+30-cutoff) * time.Millisecond)
	var docs []bson.D
	for ms := edge - 1000; ms < edge+100; ms += 10 {
		docs = append(docs, d("_id", bson.DateTime(ms), "pad", strings.Repeat("p", int(ms%7))))
	}
	te.mustInsert("app", "c", docs...)
	src := reg.get("ttl_index:app.c._id_").(*ttlSource)
	c := te.lookupColl("app", "c")
	sc, err := src.countSpan(c, c.Meta, now)
	if err != nil {
		t.Fatal(err)
	}
	// 100 documents in the ten spans before the edge, and those at edge,
	// edge+10, edge+20 and edge+30 read one by one.
	if !sc.byspans || sc.edge != edge || sc.partial.Docs != 4 || len(sc.dues) != 104 || sc.delta.Docs != -104 {
		t.Fatalf("count: by spans %v, edge %d (want %d), partial %+v, %d dues, delta %d", sc.byspans, sc.edge, edge, sc.partial, len(sc.dues), sc.delta.Docs)
	}
	for _, due := range sc.dues {
		if due > now.UnixMilli() {
			t.Fatalf("due time %d after now %d", due, now.UnixMilli())
		}
	}
	// The backlog gauge counts the same way.
	if n, oldest, newest, err := src.CountDue(ctx, now); err != nil || n != 104 || oldest.UnixMilli() != catalog.SpanLast(edge-1000)+60_000 || newest.UnixMilli() != now.UnixMilli() {
		t.Fatalf("CountDue: %d due, oldest %v newest %v (now %v), %v", n, oldest, newest, now, err)
	}
	r, err := expiry.Drain(ctx, src, now, 0, 1000)
	if err != nil || r.Items != 104 || len(r.Spans) != 1 {
		t.Fatalf("reaped %+v %v", r, err)
	}
	spans := te.storedSpans(t)
	if len(spans) != 1 || spans[edge].Docs != 6 {
		t.Fatalf("spans after the reap: %+v", spans)
	}
	if st, err := te.CollStats(ctx, "app", "c"); err != nil || st.Count != 6 {
		t.Fatalf("collStats count %d %v", st.Count, err)
	}
	if err := te.Check(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestClusteredWithoutAggregatesCountsDocuments checks that a clustered
// collection without the aggregates' marker (one created before they
// existed) is counted by reading its documents and gets no aggregates.
func TestClusteredWithoutAggregatesCountsDocuments(t *testing.T) {
	reg := newFakeRegistry()
	te := newTestEngine(t, func(o *Options) { o.Expiry = reg })
	ctx := t.Context()
	if err := te.CreateCollection(ctx, "app", "c", clusteredTTL(60)); err != nil {
		t.Fatal(err)
	}
	id := te.lookupColl("app", "c").Meta.ID
	b := te.store.NewBatch()
	p := catalog.SpansMarkerKey(id)
	if err := b.DeleteRange(p, storage.PrefixEnd(p)); err != nil {
		t.Fatal(err)
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	now := te.clock.Now()
	var docs []bson.D
	for i := range 30 {
		docs = append(docs, d("_id", date(now.Add(time.Duration(i-90)*time.Second))))
	}
	te.mustInsert("app", "c", docs...)
	if spans := te.storedSpans(t); len(spans) != 0 {
		t.Fatalf("aggregates without a marker: %+v", spans)
	}
	src := reg.get("ttl_index:app.c._id_")
	r, err := expiry.Drain(ctx, src, now, 0, 1000)
	// Every _id, from now-90 s to now-61 s, is due.
	if err != nil || r.Items != 30 {
		t.Fatalf("reaped %+v %v", r, err)
	}
	if err := te.Check(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestCheckFindsWrongSpanAggregate checks that Check reports an aggregate
// that disagrees with the documents, and one of a span with none.
func TestCheckFindsWrongSpanAggregate(t *testing.T) {
	for _, tc := range []struct {
		name  string
		start int64
		want  string
	}{
		{"a count off by one", 1_700_000_000_000, "span aggregate at"},
		{"an aggregate of an empty span", 1_600_000_000_000, "span aggregate at"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			te := newTestEngine(t)
			ctx := t.Context()
			if err := te.CreateCollection(ctx, "app", "c", CreateCollectionRequest{Clustered: true}); err != nil {
				t.Fatal(err)
			}
			te.mustInsert("app", "c", d("_id", bson.DateTime(1_700_000_000_000)), d("_id", bson.DateTime(1_700_000_000_050)))
			id := te.lookupColl("app", "c").Meta.ID
			put := func(sc catalog.SpanCount) {
				b := te.store.NewBatch()
				defer b.Close()
				if err := catalog.PutSpan(b, id, tc.start, sc); err != nil {
					t.Fatal(err)
				}
				if err := b.Commit(); err != nil {
					t.Fatal(err)
				}
			}
			orig, err := catalog.GetSpan(te.store, id, tc.start)
			if err != nil {
				t.Fatal(err)
			}
			put(catalog.SpanCount{Docs: 1, Bytes: 1, IDBytes: 1})
			err = te.Check(ctx)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("check: %v, want an error with %q", err, tc.want)
			}
			// The engine's own check at the end of the test passes again.
			put(orig)
		})
	}
}

// TestCheckFindsOrphanSpanAggregates checks that Check reports span
// aggregates of a collection id no collection has.
func TestCheckFindsOrphanSpanAggregates(t *testing.T) {
	te := newTestEngine(t)
	const orphan = 1 << 40
	write := func(f func(b *storage.Batch) error) {
		b := te.store.NewBatch()
		defer b.Close()
		if err := f(b); err != nil {
			t.Fatal(err)
		}
		if err := b.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	write(func(b *storage.Batch) error { return catalog.MarkSpans(b, orphan) })
	if err := te.Check(t.Context()); err == nil || !strings.Contains(err.Error(), "which does not exist") {
		t.Fatalf("check: %v", err)
	}
	write(func(b *storage.Batch) error { return b.Delete(catalog.SpansMarkerKey(orphan)) })
}
