package kv_test

import (
	"reflect"
	"testing"

	"github.com/mayfly/mayfly/internal/kv"
)

// A restored stream reads back whole (its nodes, counters, groups,
// consumers and pending entries), passes the store's check, and XADD
// goes on filling its tail node by the fill it was restored with.
func TestRestoreStreamThenReadValue(t *testing.T) {
	s, _, _, _, _ := newStore(t)
	e := func(ms uint64, fv ...string) kv.StreamEntry {
		var f [][]byte
		for _, x := range fv {
			f = append(f, []byte(x))
		}
		return kv.StreamEntry{ID: kv.StreamID{Ms: ms}, Fields: f}
	}
	v := &kv.StreamValue{
		Nodes: []kv.StreamNode{
			{Entries: []kv.StreamEntry{e(1, "a", "1"), e(2, "a", "2")}, Fill: 2},
			{Entries: []kv.StreamEntry{e(4, "b", "4")}, Fill: 2}, // 3 was deleted
		},
		LastID: kv.StreamID{Ms: 9}, MaxDeletedID: kv.StreamID{Ms: 3}, EntriesAdded: 5,
		Groups: []kv.StreamGroupValue{
			{Name: []byte("g"), LastID: kv.StreamID{Ms: 2}, EntriesRead: 2,
				Pending: []kv.PendingEntry{
					{ID: kv.StreamID{Ms: 1}, Consumer: []byte("alice"), DeliveryTime: 77, DeliveryCount: 3},
					{ID: kv.StreamID{Ms: 2}, Consumer: []byte("bob"), DeliveryTime: 78, DeliveryCount: 1},
				},
				Consumers: []kv.StreamConsumerValue{{Name: []byte("alice"), SeenTime: 70}, {Name: []byte("bob"), SeenTime: 71}, {Name: []byte("carol"), SeenTime: 72}}},
			{Name: []byte("h"), EntriesRead: -1},
		},
	}
	do(t, s, func(tx *kv.Tx) error {
		if ok, err := tx.Restore([]byte("st"), kv.Value{Type: kv.TypeStream, Stream: v}, 0); err != nil || !ok {
			t.Fatalf("Restore: %v %v", ok, err)
		}
		return nil
	})
	do(t, s, func(tx *kv.Tx) error {
		got, ok, err := tx.ReadValue([]byte("st"), nil, true)
		if err != nil || !ok || got.Count != 3 || !reflect.DeepEqual(got.Stream, v) {
			t.Fatalf("ReadValue = %+v %v %v\nwant %+v", got.Stream, ok, err, v)
		}
		pend, err := tx.XPendingSummary([]byte("st"), []byte("g"))
		if err != nil || pend.Count != 2 || len(pend.Consumers) != 2 {
			t.Fatalf("XPENDING = %+v %v", pend, err)
		}
		return nil
	})
	if err := s.Check(t.Context()); err != nil {
		t.Fatalf("Check after Restore: %v", err)
	}
	// the tail node took two entries: with three a node, one more fits
	// in it and the next starts a third node
	do(t, s, func(tx *kv.Tx) error {
		for ms := uint64(10); ms <= 11; ms++ {
			if _, _, err := tx.XAdd([]byte("st"), kv.XAddArgs{ID: kv.StreamID{Ms: ms}, IDGiven: true, SeqGiven: true, NodeEntries: 3}, [][]byte{[]byte("c"), []byte("x")}); err != nil {
				return err
			}
		}
		info, _, err := tx.XInfoStream([]byte("st"), false, 0)
		if err != nil || info.Nodes != 3 || info.Length != 5 || info.FirstID != (kv.StreamID{Ms: 1}) {
			t.Fatalf("XINFO = %+v %v", info, err)
		}
		return nil
	})
}
