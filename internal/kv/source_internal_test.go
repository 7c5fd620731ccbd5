package kv

import (
	"fmt"
	"testing"
	"time"

	"github.com/mayfly/mayfly/internal/storage"
)

// Ensure that the reaper's ordered batch read of metadata (readMetas)
// returns what getMeta returns key by key, wherever the record comes from:
// the Tx's own writes, the cache, storage only (a reopened store has an
// empty cache), or nowhere, in any order, and through a flush in the Tx.
func TestReadMetasAgreesWithGetMeta(t *testing.T) {
	st, err := storage.Open(storage.Options{Dir: "mem", InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	now := func() time.Time { return time.UnixMilli(1_700_000_000_000) }
	open := func() *Store {
		s, err := Open(t.Context(), Options{Store: st, Now: now})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	s := open()
	tx := s.Begin()
	for i := range 20 {
		if _, err := tx.Set(fmt.Appendf(nil, "k%02d", i), []byte("v"), SetOptions{ExpireAt: int64(1_700_000_000_000 + i)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	s = open() // on the same storage: nothing cached
	tx = s.Begin()
	defer tx.Rollback()
	for _, k := range []string{"k03", "k07", "k11"} { // now cached
		if _, _, err := tx.getMeta(tx.pdb, []byte(k)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := tx.Set([]byte("k05"), []byte("new"), SetOptions{}); err != nil { // pending
		t.Fatal(err)
	}
	if _, err := tx.Set([]byte("k99"), []byte("new"), SetOptions{}); err != nil { // pending, not stored
		t.Fatal(err)
	}
	m, _, _ := tx.getMeta(tx.pdb, []byte("k09"))
	if err := tx.deleteMeta(tx.pdb, []byte("k09"), m, false); err != nil { // deleted in the Tx
		t.Fatal(err)
	}
	check := func(what string) {
		t.Helper()
		var keys [][]byte
		for _, k := range []string{"k19", "k03", "absent", "k05", "k00", "k99", "k09", "k11", "k14", "a", "k07", "zz"} {
			keys = append(keys, []byte(k))
		}
		got, err := tx.readMetas(tx.pdb, keys, nil)
		if err != nil {
			t.Fatal(err)
		}
		for i, k := range keys {
			m, ok, err := tx.getMeta(tx.pdb, k)
			if err != nil {
				t.Fatal(err)
			}
			if got[i].ok != ok || fmt.Sprint(got[i].m) != fmt.Sprint(m) {
				t.Errorf("%s: readMetas(%s) = %v %+v, getMeta = %v %+v", what, k, got[i].ok, got[i].m, ok, m)
			}
		}
	}
	check("cached, pending, stored and absent keys")
	if err := tx.FlushDB(); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Set([]byte("k14"), []byte("after"), SetOptions{}); err != nil {
		t.Fatal(err)
	}
	check("after a flush in the Tx")
}
