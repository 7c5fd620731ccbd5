package docdb

import (
	"slices"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
	"github.com/mayfly/mayfly/internal/expiry"
)

// Ensure that a collection created with pre- and post-images gives them in
// its update events, and one without does not.
func TestChangeStreamImages(t *testing.T) {
	te := newTestEngine(t, withChangeLog)
	ctx := t.Context()
	on := true
	if err := te.CreateCollection(ctx, "app", "img", CreateCollectionRequest{PreAndPostImages: &on}); err != nil {
		t.Fatal(err)
	}
	cs, err := te.WatchChanges(ctx, ChangeStreamRequest{DB: "app", Coll: "img", FullDocument: FullDocumentWhenAvailable, FullDocumentBeforeChange: FullDocumentWhenAvailable})
	if err != nil {
		t.Fatal(err)
	}
	te.mustInsert("app", "img", d("_id", int32(1), "n", int32(1)))
	te.mustUpdate("app", "img", UpdateStatement{Filter: d("_id", int32(1)), Update: d("$set", d("n", int32(2)))})
	batch, err := cs.NextBatch(ctx, -1, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(batch) != 2 {
		t.Fatalf("batch %v", batch)
	}
	upd := batch[1]
	if v, err := upd.LookupErr("fullDocumentBeforeChange", "n"); err != nil || v.Int32() != 1 {
		t.Fatalf("update event %s", upd)
	}
	if v, err := upd.LookupErr("fullDocument", "n"); err != nil || v.Int32() != 2 {
		t.Fatalf("update event %s", upd)
	}
}

// Ensure that an expired document that strict visibility deletes when an
// insert takes its _id gives a delete event marked with expiredBy, before
// the insert's event.
func TestChangeStreamStrictVisibilityDeleteIsExpiry(t *testing.T) {
	te := newTestEngine(t, withChangeLog)
	ctx := t.Context()
	if _, err := te.CreateIndexes(ctx, "app", "s", indexSpecs(d("key", d("at", int32(1)), "name", "at_1", "expireAfterSeconds", int32(10)))); err != nil {
		t.Fatal(err)
	}
	at := bson.NewDateTimeFromTime(te.clock.Now())
	te.mustInsert("app", "s", d("_id", int32(1), "at", at))
	cs, err := te.WatchChanges(ctx, ChangeStreamRequest{DB: "app", Coll: "s"})
	if err != nil {
		t.Fatal(err)
	}
	te.clock.Advance(time.Minute)
	te.mustInsert("app", "s", d("_id", int32(1), "at", bson.NewDateTimeFromTime(te.clock.Now())))
	batch, err := cs.NextBatch(ctx, -1, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(batch) != 2 {
		t.Fatalf("batch %v", batch)
	}
	del := batch[0]
	if op := del.Lookup("operationType").StringValue(); op != "delete" {
		t.Fatalf("first event %s", del)
	}
	if v, err := del.LookupErr("expiredBy", "index"); err != nil || v.StringValue() != "at_1" {
		t.Fatalf("delete event %s", del)
	}
	if due := del.Lookup("expiredBy", "dueAt").DateTime(); due != int64(at)+10_000 {
		t.Fatalf("dueAt %d, want %d", due, int64(at)+10_000)
	}
	if op := batch[1].Lookup("operationType").StringValue(); op != "insert" {
		t.Fatalf("second event %s", batch[1])
	}
}

// Ensure that a rename with dropTarget onto a watched collection gives its
// drop and invalidate, and that the source's stream gets the rename.
func TestChangeStreamRenameDropTarget(t *testing.T) {
	te := newTestEngine(t, withChangeLog)
	ctx := t.Context()
	te.mustInsert("app", "a", d("_id", int32(1)))
	te.mustInsert("app", "b", d("_id", int32(2)))
	target, err := te.WatchChanges(ctx, ChangeStreamRequest{DB: "app", Coll: "b"})
	if err != nil {
		t.Fatal(err)
	}
	source, err := te.WatchChanges(ctx, ChangeStreamRequest{DB: "app", Coll: "a"})
	if err != nil {
		t.Fatal(err)
	}
	if err := te.RenameCollection(ctx, "app", "a", "app", "b", true); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		cs   *ChangeStream
		want []string
	}{{target, []string{"drop", "invalidate"}}, {source, []string{"rename", "invalidate"}}} {
		batch, err := tc.cs.NextBatch(ctx, -1, 0)
		if err != nil {
			t.Fatal(err)
		}
		var ops []string
		for _, ev := range batch {
			ops = append(ops, ev.Lookup("operationType").StringValue())
		}
		if len(ops) != len(tc.want) || ops[0] != tc.want[0] || ops[1] != tc.want[1] || !tc.cs.Invalidated() {
			t.Fatalf("events %v, want %v", ops, tc.want)
		}
	}
}

// withChangeLog opens the engine with its change log on.
func withChangeLog(o *Options) { o.ChangeLog = true }

// Ensure that an insert's event shows the document as inserted whatever
// happened to it since: unchanged (read from the collection), updated,
// deleted, or dropped with its collection (read from the copy the later
// write kept), and that once the copy is older than the content retention
// the stream fails with ChangeStreamHistoryLost, at that event and not
// before.
func TestChangeStreamInsertImageByReference(t *testing.T) {
	te := newTestEngine(t, withChangeLog, func(o *Options) { o.Events.ContentRetention = time.Minute })
	ctx := t.Context()
	cs, err := te.WatchChanges(ctx, ChangeStreamRequest{DB: "app", Coll: "c"})
	if err != nil {
		t.Fatal(err)
	}
	for i := int32(1); i <= 4; i++ {
		te.mustInsert("app", "c", d("_id", i, "n", i))
	}
	te.mustUpdate("app", "c", UpdateStatement{Filter: d("_id", int32(2)), Update: d("$set", d("n", int32(20)))})
	if _, err := te.Delete(ctx, "app", "c", DeleteRequest{Statements: []DeleteStatement{{Filter: d("_id", int32(3)), Limit: 1}}}); err != nil {
		t.Fatal(err)
	}
	// An insert and a change of the same document in one batch.
	if _, err := te.Update(ctx, "app", "c", UpdateRequest{Ordered: true, Statements: []UpdateStatement{
		{Filter: d("_id", int32(5)), Update: d("$set", d("n", int32(5))), Upsert: true},
		{Filter: d("_id", int32(5)), Update: d("$set", d("n", int32(50)))},
	}}); err != nil {
		t.Fatal(err)
	}
	batch, err := cs.NextBatch(ctx, -1, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := map[int32]int32{1: 1, 2: 2, 3: 3, 4: 4, 5: 5}
	inserts := 0
	for _, ev := range batch {
		if ev.Lookup("operationType").StringValue() != "insert" {
			continue
		}
		inserts++
		id := ev.Lookup("documentKey", "_id").Int32()
		if got := ev.Lookup("fullDocument", "n").Int32(); got != want[id] {
			t.Fatalf("insert of %d shows n = %d, want %d: %s", id, got, want[id], ev)
		}
	}
	if inserts != 5 {
		t.Fatalf("%d insert events in %v", inserts, batch)
	}

	// A stream from the start after the drop still shows every insert.
	again := func() (*ChangeStream, error) {
		return te.WatchChanges(ctx, ChangeStreamRequest{DB: "app", Coll: "c", StartAtOperationTime: &bson.Timestamp{T: 1}})
	}
	if _, err := te.DropCollection(ctx, "app", "c"); err != nil {
		t.Fatal(err)
	}
	cs2, err := again()
	if err != nil {
		t.Fatal(err)
	}
	batch, err = cs2.NextBatch(ctx, -1, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(batch) == 0 || batch[0].Lookup("fullDocument", "n").Int32() != 1 {
		t.Fatalf("after the drop: %v", batch)
	}

	// Past the content retention the copies are trimmed: the stream fails
	// at the first insert.
	te.clock.Advance(2 * time.Minute)
	if err := te.TrimChangeLog(); err != nil {
		t.Fatal(err)
	}
	cs3, err := again()
	if err != nil {
		t.Fatal(err)
	}
	if batch, err = cs3.NextBatch(ctx, -1, 0); mongoerr.CodeOf(err) != mongoerr.ChangeStreamHistoryLost || len(batch) != 0 {
		t.Fatalf("after the trim: %v, %v; want ChangeStreamHistoryLost", batch, err)
	}
	// A stream that drops the inserts goes past them, to the delete and
	// the invalidate of the drop.
	deletes, err := te.WatchChanges(ctx, ChangeStreamRequest{DB: "app", Coll: "c", StartAtOperationTime: &bson.Timestamp{T: 1},
		Pipeline: []bson.D{d("$match", d("operationType", "delete"))}})
	if err != nil {
		t.Fatal(err)
	}
	if batch, err = deletes.NextBatch(ctx, -1, 0); err != nil || len(batch) != 2 || batch[0].Lookup("documentKey", "_id").Int32() != 3 || batch[1].Lookup("operationType").StringValue() != "invalidate" {
		t.Fatalf("deletes after the trim: %v, %v", batch, err)
	}
}

// Ensure that the inserts whose records refer to their document are
// remembered across a reopen: an update after it still keeps the inserted
// document for the insert's event.
func TestChangeStreamInsertImageAcrossReopen(t *testing.T) {
	te := newTestEngine(t, withChangeLog, func(o *Options) { o.Events.ContentRetention = time.Minute })
	ctx := t.Context()
	te.mustInsert("app", "c", d("_id", int32(1), "n", int32(1)))
	te.reopen()
	te.mustUpdate("app", "c", UpdateStatement{Filter: d("_id", int32(1)), Update: d("$set", d("n", int32(2)))})
	cs, err := te.WatchChanges(ctx, ChangeStreamRequest{DB: "app", Coll: "c", StartAtOperationTime: &bson.Timestamp{T: 1}})
	if err != nil {
		t.Fatal(err)
	}
	batch, err := cs.NextBatch(ctx, -1, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(batch) != 2 || batch[0].Lookup("fullDocument", "n").Int32() != 1 {
		t.Fatalf("events %v", batch)
	}
}

// Ensure that every document of a large expiry reap gives its marked
// delete event, once, in a stream that reads them in many batches.
func TestChangeStreamReapGivesEveryDelete(t *testing.T) {
	reg := newFakeRegistry()
	te := newTestEngine(t, withChangeLog, func(o *Options) { o.Expiry = reg; o.Events.ContentRetention = time.Minute })
	ctx := t.Context()
	now := te.clock.Now()
	te.mustCreateIndexes("app", "s", d("key", d("at", int32(1)), "name", "at_1", "expireAfterSeconds", int32(0)))
	cs, err := te.WatchChanges(ctx, ChangeStreamRequest{DB: "app", Coll: "s", Pipeline: []bson.D{d("$match", d("operationType", "delete"))}})
	if err != nil {
		t.Fatal(err)
	}
	const n = 2000
	var docs []bson.D
	for i := range n {
		docs = append(docs, d("_id", int32(i), "at", date(now.Add(-time.Minute))))
	}
	te.mustInsert("app", "s", docs...)
	src := reg.get("ttl_index:app.s.at_1")
	more := true
	seen := map[int32]bool{}
	for range 200 {
		if more {
			te.clock.Advance(time.Second)
			if err := te.TrimChangeLog(); err != nil {
				t.Fatal(err)
			}
			r, err := expiry.Drain(ctx, src, te.clock.Now(), 100, 100)
			if err != nil {
				t.Fatal(err)
			}
			more = r.More
		}
		batch, err := cs.NextBatch(ctx, -1, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, ev := range batch {
			id := ev.Lookup("documentKey", "_id").Int32()
			if seen[id] || ev.Lookup("expiredBy", "source").StringValue() != "ttl" {
				t.Fatalf("event %s (seen: %v)", ev, seen[id])
			}
			seen[id] = true
		}
		if len(batch) == 0 && !more {
			break
		}
	}
	if len(seen) != n {
		t.Fatalf("%d deletes of %d", len(seen), n)
	}
}

// Ensure that every event of a batch of changes to one collection shows
// its namespace and collection UUID, though only the batch's first record
// names them, also to a stream resumed from the middle of the batch, and
// that a whole-database stream tells the collections of consecutive
// batches apart.
func TestChangeStreamBatchNamespace(t *testing.T) {
	te := newTestEngine(t, withChangeLog)
	ctx := t.Context()
	te.mustInsert("app", "c", d("_id", int32(1)), d("_id", int32(2)), d("_id", int32(3)))
	te.mustInsert("app", "e", d("_id", int32(4)), d("_id", int32(5)))
	if _, err := te.Update(ctx, "app", "c", UpdateRequest{Ordered: true, Statements: []UpdateStatement{
		{Filter: d("_id", int32(1)), Update: d("$set", d("n", int32(1)))},
		{Filter: d("_id", int32(2)), Update: d("$set", d("n", int32(2)))},
	}}); err != nil {
		t.Fatal(err)
	}
	// A transaction whose one entry holds changes of both collections,
	// interleaved.
	txn := te.BeginTxn()
	tctx := WithTxn(ctx, txn)
	for _, w := range []struct {
		coll string
		ids  []int32
	}{{"e", []int32{6, 7}}, {"c", []int32{8}}, {"e", []int32{9}}} {
		var docs []bson.Raw
		for _, id := range w.ids {
			docs = append(docs, raw(t, d("_id", id)))
		}
		if _, err := te.Insert(tctx, "app", w.coll, InsertRequest{Documents: docs, Ordered: true}); err != nil {
			t.Fatal(err)
		}
	}
	if err := txn.Commit(); err != nil {
		t.Fatal(err)
	}
	watch := func(req ChangeStreamRequest) []bson.Raw {
		t.Helper()
		req.DB, req.ShowExpandedEvents = "app", true
		cs, err := te.WatchChanges(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		batch, err := cs.NextBatch(ctx, -1, 0)
		if err != nil {
			t.Fatal(err)
		}
		var out []bson.Raw
		for _, ev := range batch {
			if ev.Lookup("operationType").StringValue() != "create" {
				out = append(out, ev)
			}
		}
		return out
	}
	all := watch(ChangeStreamRequest{StartAtOperationTime: &bson.Timestamp{T: 1}})
	want := []struct {
		op, coll string
		id       int32
	}{{"insert", "c", 1}, {"insert", "c", 2}, {"insert", "c", 3}, {"insert", "e", 4}, {"insert", "e", 5}, {"update", "c", 1}, {"update", "c", 2},
		{"insert", "e", 6}, {"insert", "e", 7}, {"insert", "c", 8}, {"insert", "e", 9}}
	check := func(what string, got []bson.Raw, from int) {
		t.Helper()
		if len(got) != len(want)-from {
			t.Fatalf("%s: %d events, want %d: %v", what, len(got), len(want)-from, got)
		}
		for i, ev := range got {
			w := want[from+i]
			if ev.Lookup("operationType").StringValue() != w.op || ev.Lookup("ns", "db").StringValue() != "app" ||
				ev.Lookup("ns", "coll").StringValue() != w.coll || ev.Lookup("documentKey", "_id").Int32() != w.id {
				t.Errorf("%s: event %d = %s, want %s of %d in app.%s", what, i, ev, w.op, w.id, w.coll)
			}
			if _, _, ok := ev.Lookup("collectionUUID").BinaryOK(); !ok {
				t.Errorf("%s: event %d has no collectionUUID: %s", what, i, ev)
			}
		}
	}
	check("from the start", all, 0)
	// Resumed after the first insert: the rest of its batch follows a
	// record that is not read.
	check("resumed", watch(ChangeStreamRequest{ResumeAfter: all[0].Lookup("_id").Document()}), 1)
	// A stream on one collection sees its records only.
	cs, err := te.WatchChanges(ctx, ChangeStreamRequest{DB: "app", Coll: "e", StartAtOperationTime: &bson.Timestamp{T: 1}})
	if err != nil {
		t.Fatal(err)
	}
	batch, err := cs.NextBatch(ctx, -1, 0)
	if err != nil {
		t.Fatal(err)
	}
	var ids []int32
	for _, ev := range batch {
		ids = append(ids, ev.Lookup("documentKey", "_id").Int32())
	}
	if !slices.Equal(ids, []int32{4, 5, 6, 7, 9}) {
		t.Errorf("app.e's stream has the documents %v, want 4, 5, 6, 7, 9: %v", ids, batch)
	}
}
