package kv_test

import (
	"errors"
	"testing"
	"time"

	"github.com/mayfly/mayfly/internal/kv"
)

func ids(es []kv.StreamEntry) []string {
	out := []string{}
	for _, e := range es {
		out = append(out, e.ID.String())
	}
	return out
}

func eq(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestParseStreamID(t *testing.T) {
	for _, c := range []struct {
		in       string
		strict   bool
		star     bool
		want     string
		seqGiven bool
		ok       bool
	}{
		{"1-2", true, false, "1-2", true, true},
		{"5", true, false, "5-7", true, true}, // the missing sequence
		{"-", false, false, "0-0", true, true},
		{"+", false, false, "18446744073709551615-18446744073709551615", true, true},
		{"-", true, false, "", false, false},
		{"3-*", true, true, "3-0", false, true},
		{"3-*", true, false, "", false, false},
		{"18446744073709551615-18446744073709551615", true, false, "18446744073709551615-18446744073709551615", true, true},
		{"18446744073709551616-0", true, false, "", false, false},
		{"-1-0", true, false, "", false, false},
		{"1-x", true, false, "", false, false},
		{"", true, false, "", false, false},
		{"1-", true, false, "", false, false},
	} {
		id, seqGiven, ok := kv.ParseStreamID([]byte(c.in), 7, c.strict, c.star)
		if ok != c.ok || (ok && (id.String() != c.want || seqGiven != c.seqGiven)) {
			t.Errorf("ParseStreamID(%q) = %s, %v, %v; want %s, %v, %v", c.in, id, seqGiven, ok, c.want, c.seqGiven, c.ok)
		}
	}
}

func TestStreamIDsAndTrim(t *testing.T) {
	s, _, clk, rec, _ := newStore(t)
	s.SetNotifyMask(kv.ClassStream | kv.ClassGeneric)
	key := []byte("s")
	var got []string
	do(t, s, func(tx *kv.Tx) error {
		for range 3 { // the same ms: the sequence grows
			id, _, err := tx.XAdd(key, kv.XAddArgs{}, bs("f", "v"))
			if err != nil {
				return err
			}
			got = append(got, id.String())
		}
		return nil
	})
	clk.Advance(-time.Second) // a clock going back does not go below the last ID
	do(t, s, func(tx *kv.Tx) error {
		id, _, err := tx.XAdd(key, kv.XAddArgs{}, bs("f", "v"))
		got = append(got, id.String())
		return err
	})
	want := []string{"1700000000000-0", "1700000000000-1", "1700000000000-2", "1700000000000-3"}
	if !eq(got, want) {
		t.Fatalf("auto IDs %v, want %v", got, want)
	}
	do(t, s, func(tx *kv.Tx) error {
		_, _, err := tx.XAdd(key, kv.XAddArgs{ID: kv.StreamID{Ms: 5}, IDGiven: true, SeqGiven: true}, bs("f", "v"))
		if !errors.Is(err, kv.ErrStreamIDTooSmall) {
			t.Fatalf("XAdd below the top: %v", err)
		}
		n, err := tx.XTrim(key, kv.StreamTrim{Strategy: kv.TrimMinID, MinID: kv.StreamID{Ms: 1700000000000, Seq: 2}})
		if n != 2 || err != nil {
			t.Fatalf("XTrim MINID = %d, %v", n, err)
		}
		es, err := tx.XRange(key, kv.StreamID{}, kv.MaxStreamID, 0, false)
		if err != nil || !eq(ids(es), want[2:]) {
			t.Fatalf("after trim: %v %v", ids(es), err)
		}
		n, err = tx.XDel(key, []kv.StreamID{{Ms: 1700000000000, Seq: 2}, {Ms: 1700000000000, Seq: 2}})
		if n != 1 || err != nil {
			t.Fatalf("XDel = %d, %v", n, err)
		}
		n, err = tx.XTrim(key, kv.StreamTrim{Strategy: kv.TrimMaxLen, MaxLen: 0})
		if n != 1 || err != nil {
			t.Fatalf("XTrim MAXLEN 0 = %d, %v", n, err)
		}
		l, err := tx.XLen(key)
		if l != 0 || err != nil {
			t.Fatalf("XLen = %d, %v", l, err)
		}
		typ, err := tx.Type(key)
		if typ != kv.TypeStream || err != nil {
			t.Fatalf("an emptied stream is kept: %v %v", typ, err)
		}
		return nil
	})
	wantEv := []string{"xadd:s", "xadd:s", "xadd:s", "xadd:s", "xtrim:s", "xdel:s", "xtrim:s"}
	if ev := rec.names(); !eq(ev, wantEv) {
		t.Fatalf("events %v, want %v", ev, wantEv)
	}
	if err := s.Check(t.Context()); err != nil {
		t.Fatal(err)
	}
}

// A consumer group delivers each entry once, keeps it pending until
// acknowledged, and lets another consumer claim what stayed idle.
func TestStreamGroupFlow(t *testing.T) {
	s, _, clk, _, _ := newStore(t)
	key, g := []byte("s"), []byte("g")
	do(t, s, func(tx *kv.Tx) error {
		if err := tx.XGroupCreate(key, g, kv.StreamID{}, true, false, -1); !errors.Is(err, kv.ErrXGroupNoKey) {
			t.Fatalf("XGroupCreate without MKSTREAM: %v", err)
		}
		if err := tx.XGroupCreate(key, g, kv.StreamID{}, true, true, -1); err != nil {
			return err
		}
		if err := tx.XGroupCreate(key, g, kv.StreamID{}, true, true, -1); !errors.Is(err, kv.ErrBusyGroup) {
			t.Fatalf("second XGroupCreate: %v", err)
		}
		for i := uint64(1); i <= 4; i++ {
			if _, _, err := tx.XAdd(key, kv.XAddArgs{ID: kv.StreamID{Ms: i}, IDGiven: true, SeqGiven: true}, bs("n", "v")); err != nil {
				return err
			}
		}
		a, err := tx.XReadGroup(key, kv.XReadGroupArgs{Group: g, Consumer: []byte("a"), New: true, Count: 3})
		if err != nil || !eq(ids(a), []string{"1-0", "2-0", "3-0"}) {
			t.Fatalf("first read: %v %v", ids(a), err)
		}
		b, err := tx.XReadGroup(key, kv.XReadGroupArgs{Group: g, Consumer: []byte("b"), New: true})
		if err != nil || !eq(ids(b), []string{"4-0"}) {
			t.Fatalf("second read: %v %v", ids(b), err)
		}
		if n, err := tx.XAck(key, g, []kv.StreamID{{Ms: 2}, {Ms: 9}}); n != 1 || err != nil {
			t.Fatalf("XAck = %d, %v", n, err)
		}
		return nil
	})
	clk.Advance(time.Second)
	do(t, s, func(tx *kv.Tx) error {
		sum, err := tx.XPendingSummary(key, g)
		if err != nil || sum.Count != 3 || sum.Min.String() != "1-0" || sum.Max.String() != "4-0" || len(sum.Consumers) != 2 {
			t.Fatalf("XPendingSummary: %+v %v", sum, err)
		}
		next, claimed, deleted, err := tx.XAutoClaim(key, g, []byte("c"), 500, kv.StreamID{}, 1, false)
		if err != nil || next.String() != "3-0" || !eq(ids(claimed), []string{"1-0"}) || len(deleted) != 0 {
			t.Fatalf("XAutoClaim: %v %v %v %v", next, ids(claimed), deleted, err)
		}
		if _, err := tx.XDel(key, []kv.StreamID{{Ms: 3}}); err != nil {
			return err
		}
		next, claimed, deleted, err = tx.XAutoClaim(key, g, []byte("c"), 500, next, 10, true)
		if err != nil || !next.IsZero() || !eq(ids(claimed), []string{"4-0"}) || len(deleted) != 1 || claimed[0].Fields != nil {
			t.Fatalf("XAutoClaim to the end: %v %v %v %v", next, ids(claimed), deleted, err)
		}
		pel, err := tx.XPendingRange(key, g, kv.StreamID{}, kv.MaxStreamID, 10, 0, nil)
		if err != nil || len(pel) != 2 || string(pel[0].Consumer) != "c" || pel[0].DeliveryCount != 2 || pel[1].DeliveryCount != 1 {
			t.Fatalf("XPendingRange: %+v %v", pel, err)
		}
		gs, _, err := tx.XInfoGroups(key)
		if err != nil || len(gs) != 1 || gs[0].ConsumerCount != 3 || gs[0].PendingCount != 2 || gs[0].EntriesRead != 4 {
			t.Fatalf("XInfoGroups: %+v %v", gs, err)
		}
		if n, err := tx.XGroupDelConsumer(key, g, []byte("c")); n != 2 || err != nil {
			t.Fatalf("XGroupDelConsumer = %d, %v", n, err)
		}
		return nil
	})
	if err := s.Check(t.Context()); err != nil {
		t.Fatal(err)
	}
	do(t, s, func(tx *kv.Tx) error {
		if ok, err := tx.XGroupDestroy(key, g); !ok || err != nil {
			t.Fatalf("XGroupDestroy: %v %v", ok, err)
		}
		if _, err := tx.XReadGroup(key, kv.XReadGroupArgs{Group: g, Consumer: []byte("a"), New: true}); !errors.Is(err, kv.ErrNoGroup) {
			t.Fatalf("read of a destroyed group: %v", err)
		}
		return nil
	})
	if err := s.Check(t.Context()); err != nil {
		t.Fatal(err)
	}
}
