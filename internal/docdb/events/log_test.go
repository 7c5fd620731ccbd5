package events

import (
	"bytes"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/storage"
)

// Ensure that records committed through the log are read back in order,
// that sequence numbers keep growing across a reopen, and that Trim drops
// the records past the retention but keeps the last one.
func TestLogCommitReadTrim(t *testing.T) {
	st, err := storage.Open(storage.Options{Dir: "mem", InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	now := time.Unix(1_000_000, 0)
	clock := func() time.Time { return now }
	l, err := Open(st, Options{Now: clock, Retention: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	commit := func(l *Log, ops ...string) {
		t.Helper()
		var recs [][]byte
		for _, op := range ops {
			r := Record{Op: op, DB: "db", Coll: "c"}
			raw, err := r.Encode()
			if err != nil {
				t.Fatal(err)
			}
			recs = append(recs, raw)
		}
		b := st.NewBatch()
		defer b.Close()
		if err := l.Commit(b, recs, b.Commit); err != nil {
			t.Fatal(err)
		}
	}
	commit(l, OpInsert, OpUpdate)
	now = now.Add(2 * time.Hour)
	commit(l, OpDelete)
	evs, err := l.Read(0, l.Visible(), 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != 3 || evs[0].Op != OpInsert || evs[2].Op != OpDelete || evs[0].Seq >= evs[1].Seq || evs[1].Seq >= evs[2].Seq {
		t.Fatalf("events = %+v", evs)
	}
	if evs[0].Seq>>32 != 1_000_000 || evs[2].Wall != now.UnixMilli() {
		t.Fatalf("seq %x wall %d", evs[0].Seq, evs[2].Wall)
	}
	l2, err := Open(st, Options{Now: func() time.Time { return time.Unix(10, 0) }})
	if err != nil {
		t.Fatal(err)
	}
	commit(l2, OpInsert)
	evs2, err := l2.Read(evs[2].Seq, l2.Visible(), 10)
	if err != nil || len(evs2) != 1 || evs2[0].Seq <= evs[2].Seq {
		t.Fatalf("after reopen: %+v, %v", evs2, err)
	}
	if err := l.Trim(); err != nil {
		t.Fatal(err)
	}
	oldest, ok, err := l.Oldest()
	if err != nil || !ok || oldest != evs[2].Seq {
		t.Fatalf("oldest = %x, %v, %v; want %x", oldest, ok, err, evs[2].Seq)
	}
}

// Ensure that Diff reports set, removed and truncated fields by path.
func TestDiff(t *testing.T) {
	prev := bson.D{{Key: "_id", Value: 1}, {Key: "a", Value: 1}, {Key: "b", Value: bson.D{{Key: "x", Value: 1}, {Key: "y", Value: 2}}}, {Key: "arr", Value: bson.A{1, 2, 3}}, {Key: "gone", Value: true}}
	next := bson.D{{Key: "_id", Value: 1}, {Key: "a", Value: 2}, {Key: "b", Value: bson.D{{Key: "x", Value: 1}}}, {Key: "arr", Value: bson.A{1, 5}}, {Key: "new", Value: "n"}}
	u := Diff(prev, next)
	want := bson.D{{Key: "a", Value: 2}, {Key: "arr.1", Value: 5}, {Key: "new", Value: "n"}}
	if len(u.UpdatedFields) != len(want) {
		t.Fatalf("updatedFields = %v", u.UpdatedFields)
	}
	for i := range want {
		if u.UpdatedFields[i].Key != want[i].Key {
			t.Fatalf("updatedFields = %v", u.UpdatedFields)
		}
	}
	if len(u.RemovedFields) != 2 || u.RemovedFields[0] != "b.y" || u.RemovedFields[1] != "gone" {
		t.Fatalf("removedFields = %v", u.RemovedFields)
	}
	if len(u.TruncatedArrays) != 1 || u.TruncatedArrays[0] != (TruncatedArray{Field: "arr", NewSize: 2}) {
		t.Fatalf("truncatedArrays = %v", u.TruncatedArrays)
	}
}

// Ensure that a record encoded by hand decodes to the same record.
func TestRecordRoundTrip(t *testing.T) {
	key, _ := bson.Marshal(bson.D{{Key: "_id", Value: int32(7)}})
	full, _ := bson.Marshal(bson.D{{Key: "_id", Value: int32(7)}, {Key: "a", Value: "x"}})
	r := Record{Op: OpDelete, DB: "db", Coll: "c", UUID: &bson.Binary{Subtype: 4, Data: make([]byte, 16)}, Key: key, Full: full, Pre: full,
		Update: &UpdateDescription{UpdatedFields: bson.D{{Key: "a", Value: "x"}}, RemovedFields: []string{"b"}, TruncatedArrays: []TruncatedArray{{Field: "c", NewSize: 1}}},
		ToDB:   "db2", ToColl: "c2",
		Expired: &Expiry{Source: "ttl", Name: "at_1", DueAt: 12345}}
	raw, err := r.Encode()
	if err != nil {
		t.Fatal(err)
	}
	want, err := bson.Marshal(&r)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(raw, want) {
		t.Fatalf("Encode = %s\nwant     %s", bson.Raw(raw), bson.Raw(want))
	}
	back, err := DecodeRecord(raw)
	if err != nil || back.Expired.Name != "at_1" || back.ToColl != "c2" || back.Update.TruncatedArrays[0].NewSize != 1 {
		t.Fatalf("decoded %+v, %v", back, err)
	}
}
