package events

import (
	"testing"
	"time"

	"github.com/mayfly/mayfly/internal/storage"
)

// Ensure that a log whose store receives another log's records (as a
// replica set member's does) makes them visible on Refresh, takes over
// the other's trimming, and numbers its own records after them.
func TestLogRefreshTakesOverReplicatedRecords(t *testing.T) {
	st, err := storage.Open(storage.Options{Dir: "mem", InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	now := time.Unix(1_000_000, 0)
	clock := func() time.Time { return now }
	follower, err := Open(st, Options{Now: clock, Retention: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	primary, err := Open(st, Options{Now: clock, Retention: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	commit := func(l *Log, op string) {
		t.Helper()
		raw, err := (&Record{Op: op, DB: "db", Coll: "c"}).Encode()
		if err != nil {
			t.Fatal(err)
		}
		b := st.NewBatch()
		defer b.Close()
		if err := l.Commit(b, [][]byte{raw}, b.Commit); err != nil {
			t.Fatal(err)
		}
	}
	commit(primary, OpInsert)
	now = now.Add(2 * time.Hour)
	commit(primary, OpUpdate)
	commit(primary, OpDelete)
	if follower.Visible() != 0 {
		t.Fatalf("before Refresh the follower sees up to %x", follower.Visible())
	}
	changed, _ := follower.Changed()
	if err := follower.Refresh(false); err != nil {
		t.Fatal(err)
	}
	select {
	case <-changed:
	default:
		t.Fatal("Refresh did not wake the follower's readers")
	}
	evs, err := follower.Read(0, follower.Visible(), 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != 3 || evs[2].Op != OpDelete {
		t.Fatalf("follower reads %+v, want the 3 replicated records", evs)
	}
	if err := primary.Trim(); err != nil {
		t.Fatal(err)
	}
	if err := follower.Refresh(true); err != nil {
		t.Fatal(err)
	}
	if !follower.Lost(evs[0].Seq) || follower.Lost(evs[2].Seq) {
		t.Fatal("the follower did not take over the primary's trimming")
	}
	commit(follower, OpInsert)
	after, err := follower.Read(evs[2].Seq, follower.Visible(), 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(after) != 1 || after[0].Seq <= evs[2].Seq {
		t.Fatalf("the promoted log's record %+v is not after the replicated ones", after)
	}
}
