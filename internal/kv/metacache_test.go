package kv_test

import (
	"bytes"
	"fmt"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/mayfly/mayfly/internal/kv"
	"github.com/mayfly/mayfly/internal/storage"
)

// Ensure the metadata cache never disagrees with storage: random writes,
// deletions, expiries, renames, moves, swaps and flushes, in single and
// multi-command transactions, some rolled back, on a cache small enough to
// evict all the time; after each step every key reads the same through the
// cached store as through a store without a cache opened on the same
// storage.
func TestMetaCacheAgreesWithStorage(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		st, err := storage.Open(storage.Options{Dir: "mem", InMemory: true})
		if err != nil {
			rt.Fatal(err)
		}
		defer st.Close()
		c := &clock{t: time.UnixMilli(1_700_000_000_000)}
		cacheSize := rapid.SampledFrom([]int64{300, 4 << 10, 1 << 20}).Draw(rt, "cache")
		s, err := kv.Open(t.Context(), kv.Options{Store: st, Now: c.Now, MetaCacheSize: cacheSize})
		if err != nil {
			rt.Fatal(err)
		}
		keys := []string{"a", "b", "c", "d", "e"}
		key := rapid.SampledFrom(keys)
		step := func(tx *kv.Tx, rt *rapid.T) error {
			db := rapid.IntRange(0, 1).Draw(rt, "db")
			if err := tx.Use(db); err != nil {
				return err
			}
			k := []byte(key.Draw(rt, "k"))
			switch rapid.IntRange(0, 8).Draw(rt, "op") {
			case 0, 1:
				_, err := tx.Set(k, []byte(rapid.StringMatching(`[a-z]{0,40}`).Draw(rt, "v")), kv.SetOptions{})
				return err
			case 2:
				_, err := tx.Del([][]byte{k})
				return err
			case 3:
				_, err := tx.Expire(k, tx.Now()+rapid.Int64Range(-5, 5).Draw(rt, "ms"), kv.ExpireAlways)
				return err
			case 4:
				_, err := tx.Rename(k, []byte(key.Draw(rt, "dst")), false)
				if err == kv.ErrNoSuchKey {
					return nil
				}
				return err
			case 5:
				_, err := tx.Move(k, 1-db)
				return err
			case 6:
				_, err := tx.Copy(k, []byte(key.Draw(rt, "dst")), rapid.IntRange(0, 1).Draw(rt, "dstdb"), true)
				if err == kv.ErrSameObject {
					return nil
				}
				return err
			case 7:
				return tx.FlushDB()
			default:
				return tx.SwapDB(0, 1)
			}
		}
		for i := range rapid.IntRange(1, 40).Draw(rt, "steps") {
			tx := s.Begin()
			n := rapid.IntRange(1, 4).Draw(rt, fmt.Sprint("cmds", i))
			var err error
			for j := 0; j < n && err == nil; j++ {
				tx.Tick()
				err = step(tx, rt)
			}
			if err != nil {
				tx.Rollback()
				rt.Fatalf("step %d: %v", i, err)
			}
			if rapid.IntRange(0, 5).Draw(rt, fmt.Sprint("rollback", i)) == 0 {
				tx.Rollback()
			} else if err := tx.Commit(); err != nil {
				rt.Fatal(err)
			}
			c.Advance(time.Duration(rapid.IntRange(0, 3).Draw(rt, fmt.Sprint("tick", i))) * time.Millisecond)
			compareWithUncached(rt, s, st, c, keys)
		}
	})
}

// compareWithUncached reads every key of databases 0 and 1 through s and
// through a fresh store without a cache on the same storage.
func compareWithUncached(rt *rapid.T, s *kv.Store, st *storage.Store, c *clock, keys []string) {
	ref, err := kv.Open(rt.Context(), kv.Options{Store: st, Now: c.Now, MetaCacheSize: -1})
	if err != nil {
		rt.Fatal(err)
	}
	defer ref.Close()
	for db := range 2 {
		for _, k := range keys {
			got, gotOK := readString(rt, s, db, k)
			want, wantOK := readString(rt, ref, db, k)
			if gotOK != wantOK || !bytes.Equal(got, want) {
				rt.Fatalf("db %d key %q: cached (%q, %v), storage (%q, %v)", db, k, got, gotOK, want, wantOK)
			}
		}
	}
}

// readString reads key k of db with its expiry, without changing anything.
func readString(rt *rapid.T, s *kv.Store, db int, k string) ([]byte, bool) {
	tx := s.Begin()
	defer tx.Rollback()
	if err := tx.Use(db); err != nil {
		rt.Fatal(err)
	}
	v, ok, err := tx.Get([]byte(k))
	if err != nil {
		rt.Fatal(err)
	}
	at, _, err := tx.ExpireAt([]byte(k))
	if err != nil {
		rt.Fatal(err)
	}
	return append(v, fmt.Sprintf("@%d", at)...), ok
}
