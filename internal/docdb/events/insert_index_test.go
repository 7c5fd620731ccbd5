package events

import (
	"bytes"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/catalog"
	"github.com/mayfly/mayfly/internal/docdb/change"
	"github.com/mayfly/mayfly/internal/docdb/stored"
	"github.com/mayfly/mayfly/internal/storage"
)

// hookFixture writes documents of one collection with the log's hook, as
// the engine's writer does: the document in the batch, then the hook, then
// the log's commit of the batch's records.
type hookFixture struct {
	t  *testing.T
	st *storage.Store
	l  *Log
	m  *catalog.CollMeta
	cb change.Batch
	b  *storage.Batch
}

func newHookFixture(t *testing.T) *hookFixture {
	st, err := storage.Open(storage.Options{Dir: "mem", InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	l, err := Open(st, Options{Now: func() time.Time { return time.Unix(1_000_000, 0) }})
	if err != nil {
		t.Fatal(err)
	}
	return &hookFixture{t: t, st: st, l: l, m: &catalog.CollMeta{ID: 7, DB: "db", Name: "c", UUID: catalog.NewUUID()}}
}

func (f *hookFixture) doc(id, v int32) *stored.Doc {
	raw, err := bson.Marshal(bson.D{{Key: "_id", Value: id}, {Key: "v", Value: v}})
	if err != nil {
		f.t.Fatal(err)
	}
	sd, err := stored.New(raw)
	if err != nil {
		f.t.Fatal(err)
	}
	return sd
}

// change writes next in place of prev (either may be nil) in the current
// batch, opening one if needed.
func (f *hookFixture) change(prev, next *stored.Doc) {
	f.t.Helper()
	if f.b == nil {
		f.b = f.st.NewIndexedBatch()
		f.cb.Bind(f.b)
	}
	var err error
	if next != nil {
		err = f.b.Set(catalog.DocKey(f.m.ID, next.IDEnc), next.Raw)
	} else {
		err = f.b.Delete(catalog.DocKey(f.m.ID, prev.IDEnc))
	}
	if err != nil {
		f.t.Fatal(err)
	}
	if err := f.l.Hook().DocumentChanged(&f.cb, f.m, prev, next); err != nil {
		f.t.Fatal(err)
	}
}

func (f *hookFixture) commit() {
	f.t.Helper()
	defer func() { f.b.Close(); f.b = nil }()
	if err := f.l.Commit(f.b, f.cb.TakeRecords(), f.b.Commit); err != nil {
		f.t.Fatal(err)
	}
}

// events returns every event of the log, resolved.
func (f *hookFixture) events() []Event {
	f.t.Helper()
	evs, err := f.l.Read(0, f.l.Visible(), 100)
	if err != nil {
		f.t.Fatal(err)
	}
	for i := range evs {
		if err := f.l.Resolve(&evs[i]); err != nil {
			f.t.Fatalf("resolve %d (%s): %v", i, evs[i].Op, err)
		}
	}
	return evs
}

// checkInsert checks that ev is the insert of doc, in the fixture's
// namespace, showing doc and its key.
func (f *hookFixture) checkInsert(ev Event, doc *stored.Doc) {
	f.t.Helper()
	key, _ := bson.Marshal(bson.D{{Key: "_id", Value: doc.ID}})
	if ev.Op != OpInsert || ev.DB != f.m.DB || ev.Coll != f.m.Name || ev.UUID == nil || !bytes.Equal(ev.UUID.Data, f.m.UUID.Data) {
		f.t.Errorf("event %d: %s in %s.%s %v; want an insert in %s.%s", ev.Seq, ev.Op, ev.DB, ev.Coll, ev.UUID, f.m.DB, f.m.Name)
	}
	if !bytes.Equal(ev.Full, doc.Raw) || !bytes.Equal(ev.Key, key) {
		f.t.Errorf("event %d shows %s, key %s; want %s, key %s", ev.Seq, ev.Full, bson.Raw(ev.Key), doc.Raw, bson.Raw(key))
	}
}

// Ensure that inserts are logged as compact records that show the stored
// document and its key, that inserting builds no index of inserts, and
// that the write that later changes or deletes a document keeps it as its
// insert's content, found from the log (also after a reopen, which counts
// the inserts again), including an insert in the same batch.
func TestInsertRecordsReferToTheirDocument(t *testing.T) {
	f := newHookFixture(t)
	d1, d2, d3 := f.doc(1, 10), f.doc(2, 20), f.doc(3, 30)
	f.change(nil, d1)
	f.change(nil, d2)
	f.change(nil, d3)
	recs := f.cb.TakeRecords()
	for i, r := range recs {
		if !isInsertRef(r) || len(r) > 48 {
			t.Errorf("record %d is %d bytes, compact: %v", i, len(r), isInsertRef(r))
		}
	}
	if err := f.l.Commit(f.b, recs, f.b.Commit); err != nil {
		t.Fatal(err)
	}
	f.b.Close()
	f.b = nil
	if n := len(f.l.inserts.recent.last); n != 0 {
		t.Errorf("inserts alone indexed %d documents", n)
	}
	evs := f.events()
	if len(evs) != 3 {
		t.Fatalf("%d events, want 3", len(evs))
	}
	for i, d := range []*stored.Doc{d1, d2, d3} {
		f.checkInsert(evs[i], d)
	}

	d1b := f.doc(1, 11)
	f.change(d1, d1b)
	f.commit()
	f.change(d2, nil)
	f.commit()
	// Inserted and replaced in one batch.
	d4, d4b := f.doc(4, 40), f.doc(4, 41)
	f.change(nil, d4)
	f.change(d4, d4b)
	f.commit()

	evs = f.events()
	if len(evs) != 7 {
		t.Fatalf("%d events, want 7", len(evs))
	}
	f.checkInsert(evs[0], d1)
	f.checkInsert(evs[1], d2)
	f.checkInsert(evs[2], d3)
	f.checkInsert(evs[5], d4)
	if evs[3].Op != OpUpdate || evs[4].Op != OpDelete || evs[6].Op != OpUpdate {
		t.Errorf("ops %s %s %s; want update delete update", evs[3].Op, evs[4].Op, evs[6].Op)
	}

	// A reopened log finds the insert of d3 from its records.
	l, err := Open(f.st, f.l.opts)
	if err != nil {
		t.Fatal(err)
	}
	f.l = l
	if n := l.refs.total.Load(); n != 3 {
		t.Errorf("the reopened log counts %d inserts referring to their document, want 3", n)
	}
	f.change(d3, nil)
	f.commit()
	f.checkInsert(f.events()[2], d3)
}

// Ensure that the inserts the index has no room for are found by searching
// the log, by the write that changes their document and by the drop of
// their collection.
func TestInsertIndexFull(t *testing.T) {
	f := newHookFixture(t)
	f.l.inserts.recent.limit = 1
	docs := []*stored.Doc{f.doc(1, 10), f.doc(2, 20), f.doc(3, 30)}
	for _, d := range docs {
		f.change(nil, d)
		f.commit()
	}
	f.change(docs[2], f.doc(3, 31))
	f.commit()
	if n := len(f.l.inserts.recent.last); n != 1 {
		t.Errorf("index holds %d documents, want 1", n)
	}
	b := f.st.NewBatch()
	defer b.Close()
	if err := f.l.CollectionDropped(b, f.m); err != nil {
		t.Fatal(err)
	}
	for _, d := range docs[:2] {
		if err := b.Delete(catalog.DocKey(f.m.ID, d.IDEnc)); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	evs := f.events()
	for i, d := range docs {
		f.checkInsert(evs[i], d)
	}
}

// Ensure that once the log counts as many inserts referring to their
// document as its index holds, inserts keep their document as content at
// once, and their events still show it after it changed.
func TestInsertsKeepTheirDocumentPastTheIndex(t *testing.T) {
	f := newHookFixture(t)
	f.l.inserts.keepAt = 2
	docs := []*stored.Doc{f.doc(1, 10), f.doc(2, 20), f.doc(3, 30), f.doc(4, 40)}
	f.change(nil, docs[0])
	f.change(nil, docs[1])
	f.commit()
	f.change(nil, docs[2])
	recs := f.cb.TakeRecords()
	if len(recs) != 1 || isInsertRef(recs[0]) {
		t.Fatalf("past the index, an insert's record is compact: %v", recs)
	}
	if err := f.l.Commit(f.b, recs, f.b.Commit); err != nil {
		t.Fatal(err)
	}
	f.b.Close()
	f.b = nil
	f.change(nil, docs[3])
	f.commit()
	for _, d := range docs {
		f.change(d, f.doc(int32(d.ID.Int32()), -1))
	}
	f.commit()
	evs := f.events()
	for i, d := range docs {
		f.checkInsert(evs[i], d)
	}
	// Forgetting the counted inserts makes room again.
	f.l.forgetInserts(^uint64(0))
	if f.l.refs.full(2) {
		t.Errorf("after forgetting every second, %d inserts counted", f.l.refs.total.Load())
	}
}

// Ensure that a search of inserts bounded by a sequence number reads no
// record past it: the search of the inserts the index had no room for ends
// with their range, not at the end of the log, so a write that changes a
// document costs the range, however many records followed it.
func TestEachInsertStopsAtItsBound(t *testing.T) {
	f := newHookFixture(t)
	for i := int32(1); i <= 3; i++ {
		f.change(nil, f.doc(i, i))
		f.commit()
	}
	last := f.l.Visible()
	b := f.st.NewBatch()
	if err := b.Set(Key(last+10), []byte("not an entry")); err != nil {
		t.Fatal(err)
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	b.Close()
	if err := f.l.eachInsert(0, toEnd, func(uint64, []byte, uint64) bool { return true }); err == nil {
		t.Fatal("reading to the end of the log decoded a malformed entry")
	}
	var seen []uint64
	err := f.l.eachInsert(0, last, func(_ uint64, _ []byte, x uint64) bool {
		seen = append(seen, x)
		return true
	})
	if err != nil || len(seen) != 3 || seen[2] != last {
		t.Fatalf("bounded by the last insert %d: saw %v, err %v", last, seen, err)
	}
	seen = seen[:0]
	if err := f.l.eachInsert(0, last-1, func(_ uint64, _ []byte, x uint64) bool {
		seen = append(seen, x)
		return true
	}); err != nil || len(seen) != 2 {
		t.Fatalf("bounded below the last insert: saw %v, err %v", seen, err)
	}
}
