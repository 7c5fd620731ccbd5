package kv_test

import (
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/mayfly/mayfly/internal/kv"
)

// A restored value of each type reads back whole, in kv's orders, counts
// as one key, and replaces what was there; an expiry already due creates
// nothing and deletes the key it replaces.
func TestRestoreThenReadValue(t *testing.T) {
	s, _, c, rec, _ := newStore(t)
	b := func(ss ...string) [][]byte {
		out := make([][]byte, len(ss))
		for i, x := range ss {
			out[i] = []byte(x)
		}
		return out
	}
	values := map[string]kv.Value{
		"str":  {Type: kv.TypeString, String: []byte("hello")},
		"list": {Type: kv.TypeList, Items: b("c", "a", "b", "a")},
		"set":  {Type: kv.TypeSet, Items: b("z", "x", "y")},
		"hash": {Type: kv.TypeHash, Pairs: []kv.HashPair{{Field: []byte("g"), Value: []byte("2")}, {Field: []byte("f"), Value: []byte("1")}}},
		"zset": {Type: kv.TypeZSet, Members: []kv.ZMember{{Member: []byte("b"), Score: 2}, {Member: []byte("a"), Score: 3}, {Member: []byte("c"), Score: -1}}},
	}
	do(t, s, func(tx *kv.Tx) error {
		if _, err := tx.Set([]byte("list"), []byte("old"), kv.SetOptions{}); err != nil {
			return err
		}
		for k, v := range values {
			if ok, err := tx.Restore([]byte(k), v, 0); err != nil || !ok {
				t.Fatalf("Restore %s: %v %v", k, ok, err)
			}
		}
		return nil
	})
	if n := dbsize(t, s); n != 5 {
		t.Fatalf("dbsize %d, want 5", n)
	}
	want := map[string]kv.Value{
		"str":  {Type: kv.TypeString, String: []byte("hello")},
		"list": {Type: kv.TypeList, Count: 4, Items: b("c", "a", "b", "a")},
		"set":  {Type: kv.TypeSet, Count: 3, Items: b("x", "y", "z")},
		"hash": {Type: kv.TypeHash, Count: 2, Pairs: []kv.HashPair{{Field: []byte("f"), Value: []byte("1")}, {Field: []byte("g"), Value: []byte("2")}}},
		"zset": {Type: kv.TypeZSet, Count: 3, Members: []kv.ZMember{{Member: []byte("c"), Score: -1}, {Member: []byte("b"), Score: 2}, {Member: []byte("a"), Score: 3}}},
	}
	do(t, s, func(tx *kv.Tx) error {
		for k, w := range want {
			got, ok, err := tx.ReadValue([]byte(k), nil, true)
			if err != nil || !ok || !reflect.DeepEqual(got, w) {
				t.Errorf("ReadValue %s = %+v %v %v, want %+v", k, got, ok, err, w)
			}
		}
		got, ok, err := tx.ReadValue([]byte("set"), func(kv.Type) int64 { return 2 }, false)
		if err != nil || !ok || !got.Partial || got.Count != 3 || got.Items != nil {
			t.Errorf("ReadValue over the limit = %+v %v %v", got, ok, err)
		}
		return nil
	})
	now := c.Now().UnixMilli()
	do(t, s, func(tx *kv.Tx) error {
		if ok, err := tx.Restore([]byte("ttl"), values["str"], now+1000); err != nil || !ok {
			t.Fatalf("Restore with expiry: %v %v", ok, err)
		}
		// due: nothing created, the replaced key deleted
		if ok, err := tx.Restore([]byte("set"), values["str"], now); err != nil || ok {
			t.Fatalf("Restore already due: %v %v", ok, err)
		}
		return nil
	})
	if n := dbsize(t, s); n != 5 {
		t.Fatalf("dbsize %d, want 5 (ttl added, set gone)", n)
	}
	if got := rec.names(); !slices.Contains(got, "restore:ttl") || !slices.Contains(got, "del:set") {
		t.Fatalf("events %v", got)
	}
	c.Advance(1001 * time.Millisecond)
	if n := dbsize(t, s); n != 4 {
		t.Fatalf("dbsize after expiry %d, want 4", n)
	}
}
