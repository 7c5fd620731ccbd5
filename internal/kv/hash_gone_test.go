package kv_test

import (
	"slices"
	"testing"
	"time"

	"github.com/mayfly/mayfly/internal/expiry"
	"github.com/mayfly/mayfly/internal/kv"
)

// goneHash makes hash h with fields a and b expiring at now+100 ms (and
// the key itself expiring in an hour when keyTTL), then moves the clock
// past them without any reaper running.
func goneHash(t *testing.T, keyTTL bool) (*kv.Store, *clock, *recorder) {
	t.Helper()
	s, c, rec := collStore(t)
	now := c.Now().UnixMilli()
	do(t, s, func(tx *kv.Tx) error {
		if _, err := tx.HSet([]byte("h"), bs("a", "1", "b", "2")); err != nil {
			return err
		}
		if _, err := tx.HSet([]byte("other"), bs("x", "1")); err != nil {
			return err
		}
		if keyTTL {
			if _, err := tx.Expire([]byte("h"), now+3_600_000, kv.ExpireAlways); err != nil {
				return err
			}
		}
		_, err := tx.HExpire([]byte("h"), now+100, kv.HExpireAlways, bs("a", "b"))
		return err
	})
	c.Advance(101 * time.Millisecond)
	rec.names()
	return s, c, rec
}

func TestHashWithAllFieldsExpiredIsGone(t *testing.T) {
	// Each read path on its own, on a fresh store: the first to look the
	// key up would delete it for the others.
	cases := []struct {
		name string
		f    func(tx *kv.Tx) (gone bool, err error)
	}{
		{"EXISTS", func(tx *kv.Tx) (bool, error) { n, err := tx.Exists(bs("h")); return n == 0, err }},
		{"TYPE", func(tx *kv.Tx) (bool, error) { ty, err := tx.Type([]byte("h")); return ty == kv.TypeNone, err }},
		{"TTL", func(tx *kv.Tx) (bool, error) {
			_, st, err := tx.ExpireAt([]byte("h"))
			return st == kv.TTLMissing, err
		}},
		{"HLEN", func(tx *kv.Tx) (bool, error) { n, err := tx.HLen([]byte("h")); return n == 0, err }},
		{"HGETALL", func(tx *kv.Tx) (bool, error) { p, err := tx.HGetAll([]byte("h")); return len(p) == 0, err }},
		{"KEYS", func(tx *kv.Tx) (bool, error) {
			k, err := tx.Keys([]byte("*"))
			return slices.Equal(strs(k), []string{"other"}), err
		}},
		{"SCAN", func(tx *kv.Tx) (bool, error) {
			_, k, err := tx.Scan(0, kv.ScanOptions{Count: 100})
			return slices.Equal(strs(k), []string{"other"}), err
		}},
		{"SCAN TYPE hash", func(tx *kv.Tx) (bool, error) {
			_, k, err := tx.Scan(0, kv.ScanOptions{Count: 100, Type: kv.TypeHash})
			return slices.Equal(strs(k), []string{"other"}), err
		}},
		{"RANDOMKEY", func(tx *kv.Tx) (bool, error) {
			for range 20 {
				k, ok, err := tx.RandomKey()
				if err != nil || !ok || string(k) != "other" {
					return false, err
				}
			}
			return true, nil
		}},
		{"DBSIZE", func(tx *kv.Tx) (bool, error) { n, err := tx.DBSize(); return n == 1, err }},
		{"INFO keyspace", func(tx *kv.Tx) (bool, error) {
			ki, err := tx.KeyspaceInfo()
			return ki.Keys == 1 && ki.Expires == 0, err
		}},
		{"HSETNX", func(tx *kv.Tx) (bool, error) {
			ok, err := tx.HSetNX([]byte("h"), []byte("a"), []byte("new"))
			return ok, err
		}},
		{"RENAME", func(tx *kv.Tx) (bool, error) {
			_, err := tx.Rename([]byte("h"), []byte("h2"), false)
			return err == kv.ErrNoSuchKey, nil
		}},
	}
	for _, keyTTL := range []bool{false, true} {
		for _, cs := range cases {
			s, _, _ := goneHash(t, keyTTL)
			do(t, s, func(tx *kv.Tx) error {
				gone, err := cs.f(tx)
				if err != nil || !gone {
					t.Errorf("%s (key TTL %v): the hash is visible (%v)", cs.name, keyTTL, err)
				}
				return nil
			})
		}
	}
}

func TestGoneHashDeletedOnLookupWithEvents(t *testing.T) {
	s, c, rec := goneHash(t, true)
	before := s.Stats()
	do(t, s, func(tx *kv.Tx) error {
		if n, err := tx.Exists(bs("h", "h")); n != 0 || err != nil {
			t.Errorf("EXISTS %d %v", n, err)
		}
		return nil
	})
	if got := rec.names(); !slices.Equal(got, []string{"hexpired:h", "del:h"}) {
		t.Fatalf("events %v", got)
	}
	if n := s.ExpiredFields(); n != 2 {
		t.Fatalf("expired fields %d, want 2", n)
	}
	after := s.Stats()
	if after.ExpiredKeys != before.ExpiredKeys {
		t.Fatalf("a hash gone by its fields counted as an expired key")
	}
	// The record, its key expiry and its field index entry went with it.
	if n := dbsize(t, s); n != 1 {
		t.Fatalf("dbsize %d", n)
	}
	do(t, s, func(tx *kv.Tx) error {
		ki, err := tx.KeyspaceInfo()
		if ki.Keys != 1 || ki.Expires != 0 {
			t.Errorf("keyspace %+v", ki)
		}
		return err
	})
	if _, ok, _ := fieldSource(t, s, 0).NextDue(t.Context()); ok {
		t.Fatal("the field index entry survived the hash")
	}
	// A new hash under the name starts afresh.
	do(t, s, func(tx *kv.Tx) error {
		if n, err := tx.HSet([]byte("h"), bs("z", "1")); n != 1 || err != nil {
			t.Errorf("HSET %d %v", n, err)
		}
		return nil
	})
	c.Advance(time.Hour)
	if got := hgetall(t, s, "h"); len(got) != 1 || got["z"] != "1" {
		t.Fatalf("new hash %v", got)
	}
}

func TestGoneHashReaped(t *testing.T) {
	s, c, rec := goneHash(t, false)
	src := fieldSource(t, s, 0)
	r, err := expiry.Drain(t.Context(), src, c.Now(), 0, 1)
	if err != nil || r.Items != 2 || r.More {
		t.Fatalf("reap %+v %v", r, err)
	}
	if got := rec.names(); !slices.Equal(got, []string{"hexpired:h", "hexpired:h", "del:h"}) {
		t.Fatalf("events %v", got)
	}
	if n := s.ExpiredFields(); n != 2 {
		t.Fatalf("expired fields %d", n)
	}
	if n := dbsize(t, s); n != 1 {
		t.Fatalf("dbsize %d", n)
	}
}

// TestHashExpiryFiguresFollowEveryCommand checks the rule's two figures
// (how many fields expire, the latest expiry) through every command that
// changes them: the hash must be gone exactly when its last field is.
func TestHashExpiryFiguresFollowEveryCommand(t *testing.T) {
	const h = "h"
	type step func(tx *kv.Tx, now int64) error
	hexpire := func(at int64, cond kv.HExpireCond, f ...string) step {
		return func(tx *kv.Tx, now int64) error {
			_, err := tx.HExpire([]byte(h), now+at, cond, bs(f...))
			return err
		}
	}
	cases := []struct {
		name  string
		steps []step
		alive []string // fields left after 300 ms; none: the hash is gone
	}{
		{"all expire", []step{hexpire(100, kv.HExpireAlways, "a", "b", "c")}, nil},
		{"one persistent field", []step{hexpire(100, kv.HExpireAlways, "a", "b")}, []string{"c"}},
		{"HPERSIST", []step{hexpire(100, kv.HExpireAlways, "a", "b", "c"), func(tx *kv.Tx, _ int64) error {
			_, err := tx.HPersist([]byte(h), bs("b"))
			return err
		}}, []string{"b"}},
		{"HSET clears a field's expiry", []step{hexpire(100, kv.HExpireAlways, "a", "b", "c"), func(tx *kv.Tx, _ int64) error {
			_, err := tx.HSet([]byte(h), bs("c", "9"))
			return err
		}}, []string{"c"}},
		{"HINCRBY keeps it", []step{hexpire(100, kv.HExpireAlways, "a", "b", "c"), func(tx *kv.Tx, _ int64) error {
			_, err := tx.HIncrBy([]byte(h), []byte("c"), 1)
			return err
		}}, nil},
		{"HDEL of the persistent field", []step{hexpire(100, kv.HExpireAlways, "a", "b"), func(tx *kv.Tx, _ int64) error {
			_, err := tx.HDel([]byte(h), bs("c"))
			return err
		}}, nil},
		{"HDEL of the latest field", []step{hexpire(100, kv.HExpireAlways, "a", "b"), hexpire(500, kv.HExpireAlways, "c"), func(tx *kv.Tx, _ int64) error {
			_, err := tx.HDel([]byte(h), bs("c"))
			return err
		}}, nil},
		{"GT pushes the latest later", []step{hexpire(100, kv.HExpireAlways, "a", "b", "c"), hexpire(500, kv.HExpireGT, "b")}, []string{"b"}},
		{"LT brings the latest earlier", []step{hexpire(100, kv.HExpireAlways, "a", "b"), hexpire(500, kv.HExpireAlways, "c"), hexpire(200, kv.HExpireLT, "c")}, nil},
		{"a past time deletes the latest", []step{hexpire(100, kv.HExpireAlways, "a", "b"), hexpire(500, kv.HExpireAlways, "c"), hexpire(-1, kv.HExpireAlways, "c")}, nil},
		{"HSETEX sets the expiry", []step{hexpire(100, kv.HExpireAlways, "a", "b"), func(tx *kv.Tx, now int64) error {
			_, err := tx.HSetEx([]byte(h), kv.HSetExAlways, kv.HSetExAt, now+150, bs("c", "9"))
			return err
		}}, nil},
		{"HSETEX KEEPTTL on a new field", []step{hexpire(100, kv.HExpireAlways, "a", "b", "c"), func(tx *kv.Tx, _ int64) error {
			_, err := tx.HSetEx([]byte(h), kv.HSetExAlways, kv.HSetExKeepTTL, 0, bs("d", "9"))
			return err
		}}, []string{"d"}},
		{"HGETEX PERSIST", []step{hexpire(100, kv.HExpireAlways, "a", "b", "c"), func(tx *kv.Tx, _ int64) error {
			_, err := tx.HGetEx([]byte(h), kv.HGetExPersist, 0, bs("a"))
			return err
		}}, []string{"a"}},
		{"HGETEX PXAT later", []step{hexpire(100, kv.HExpireAlways, "a", "b", "c"), func(tx *kv.Tx, now int64) error {
			_, err := tx.HGetEx([]byte(h), kv.HGetExAt, now+1000, bs("a"))
			return err
		}}, []string{"a"}},
		{"HGETDEL of the persistent field", []step{hexpire(100, kv.HExpireAlways, "a", "b"), func(tx *kv.Tx, _ int64) error {
			_, err := tx.HGetDel([]byte(h), bs("c"))
			return err
		}}, nil},
	}
	for _, cs := range cases {
		t.Run(cs.name, func(t *testing.T) {
			s, c, _ := collStore(t)
			now := c.Now().UnixMilli()
			do(t, s, func(tx *kv.Tx) error {
				if _, err := tx.HSet([]byte(h), bs("a", "1", "b", "2", "c", "3")); err != nil {
					return err
				}
				for _, st := range cs.steps {
					if err := st(tx, now); err != nil {
						return err
					}
				}
				return nil
			})
			c.Advance(300 * time.Millisecond)
			var keys []string
			do(t, s, func(tx *kv.Tx) error {
				k, err := tx.Keys([]byte("*"))
				keys = strs(k)
				return err
			})
			if want := len(cs.alive) > 0; (len(keys) == 1) != want {
				t.Fatalf("KEYS %v, want the hash present %v", keys, want)
			}
			got := hgetall(t, s, h)
			var fields []string
			for f := range got {
				fields = append(fields, f)
			}
			slices.Sort(fields)
			if !slices.Equal(fields, cs.alive) {
				t.Fatalf("fields %v, want %v", fields, cs.alive)
			}
		})
	}
}

func TestGoneHashThroughRenameCopyMove(t *testing.T) {
	s, c, _ := collStore(t)
	now := c.Now().UnixMilli()
	do(t, s, func(tx *kv.Tx) error {
		for _, k := range []string{"r", "c", "m"} {
			if _, err := tx.HSet([]byte(k), bs("a", "1", "b", "2")); err != nil {
				return err
			}
			if _, err := tx.HExpire([]byte(k), now+100, kv.HExpireAlways, bs("a", "b")); err != nil {
				return err
			}
		}
		if _, err := tx.Rename([]byte("r"), []byte("r2"), false); err != nil {
			return err
		}
		if _, err := tx.Copy([]byte("c"), []byte("c2"), 0, false); err != nil {
			return err
		}
		_, err := tx.Move([]byte("m"), 2)
		return err
	})
	if n := dbsize(t, s); n != 3 {
		t.Fatalf("dbsize before %d", n)
	}
	c.Advance(101 * time.Millisecond)
	if n := dbsize(t, s); n != 0 {
		t.Fatalf("dbsize after %d", n)
	}
	do(t, s, func(tx *kv.Tx) error {
		if n, err := tx.Exists(bs("r2", "c", "c2")); n != 0 || err != nil {
			t.Errorf("EXISTS %d %v", n, err)
		}
		if err := tx.Use(2); err != nil {
			return err
		}
		if n, err := tx.DBSize(); n != 0 || err != nil {
			t.Errorf("db2 DBSIZE %d %v", n, err)
		}
		if n, err := tx.Exists(bs("m")); n != 0 || err != nil {
			t.Errorf("db2 EXISTS %d %v", n, err)
		}
		return nil
	})
	if n := s.ExpiredFields(); n != 8 {
		t.Fatalf("expired fields %d, want 8", n)
	}
}
