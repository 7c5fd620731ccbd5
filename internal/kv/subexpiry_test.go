package kv_test

import (
	"testing"
	"time"

	"github.com/mayfly/mayfly/internal/expiry"
	"github.com/mayfly/mayfly/internal/kv"
)

// subexpiries returns INFO keyspace subexpiry of every logical database,
// read inside a Tx and through Store.Keyspace, which must agree.
func subexpiries(t *testing.T, s *kv.Store) [kv.NumDBs]int64 {
	t.Helper()
	var out [kv.NumDBs]int64
	do(t, s, func(tx *kv.Tx) error {
		for db := range kv.NumDBs {
			tx.Use(db)
			ki, err := tx.KeyspaceInfo()
			if err != nil {
				return err
			}
			out[db] = ki.Subexpiry
		}
		return nil
	})
	infos, err := s.Keyspace(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	var viaKeyspace [kv.NumDBs]int64
	for _, ki := range infos {
		viaKeyspace[ki.DB] = ki.Subexpiry
	}
	if viaKeyspace != out {
		t.Fatalf("Keyspace %v, KeyspaceInfo %v", viaKeyspace, out)
	}
	return out
}

func TestSubexpiryFollowsEveryPath(t *testing.T) {
	s, _, c, _, _ := newStore(t)
	now := c.Now().UnixMilli()
	far := now + 3_600_000
	near := now + 1_000
	hexpire := func(key string, at int64, fields ...string) func(tx *kv.Tx) error {
		return func(tx *kv.Tx) error {
			_, err := tx.HExpire([]byte(key), at, kv.HExpireAlways, bs(fields...))
			return err
		}
	}
	hset := func(key string, pairs ...string) func(tx *kv.Tx) error {
		return func(tx *kv.Tx) error { _, err := tx.HSet([]byte(key), bs(pairs...)); return err }
	}
	inDB := func(db int, f func(tx *kv.Tx) error) func(tx *kv.Tx) error {
		return func(tx *kv.Tx) error { tx.Use(db); return f(tx) }
	}
	steps := []struct {
		name    string
		op      func(tx *kv.Tx) error
		advance time.Duration // clock move after op
		reap    bool          // run the key and field sources of db 0 after
		want    map[int]int64 // other dbs want 0
	}{
		{name: "hset without ttl", op: hset("h1", "a", "1", "b", "2"), want: nil},
		{name: "hexpire", op: hexpire("h1", far, "a"), want: map[int]int64{0: 1}},
		{name: "second field same hash", op: hexpire("h1", far, "b"), want: map[int]int64{0: 1}},
		{name: "hpersist one", op: func(tx *kv.Tx) error { _, err := tx.HPersist([]byte("h1"), bs("a")); return err }, want: map[int]int64{0: 1}},
		{name: "hpersist last", op: func(tx *kv.Tx) error { _, err := tx.HPersist([]byte("h1"), bs("b")); return err }, want: nil},
		{name: "hexpire again", op: hexpire("h1", far, "a"), want: map[int]int64{0: 1}},
		{name: "hset overwrite clears ttl", op: hset("h1", "a", "x"), want: nil},
		{name: "hsetex new hash", op: func(tx *kv.Tx) error {
			_, err := tx.HSetEx([]byte("h2"), kv.HSetExAlways, kv.HSetExAt, far, bs("x", "1"))
			return err
		}, want: map[int]int64{0: 1}},
		{name: "hgetex sets ttl", op: func(tx *kv.Tx) error {
			_, err := tx.HGetEx([]byte("h1"), kv.HGetExAt, far, bs("a"))
			return err
		}, want: map[int]int64{0: 2}},
		{name: "hdel the ttl field", op: func(tx *kv.Tx) error { _, err := tx.HDel([]byte("h1"), bs("a")); return err }, want: map[int]int64{0: 1}},
		{name: "hgetdel empties a ttl hash", op: func(tx *kv.Tx) error {
			if err := hexpire("h1", far, "b")(tx); err != nil {
				return err
			}
			_, err := tx.HGetDel([]byte("h1"), bs("b"))
			return err
		}, want: map[int]int64{0: 1}},
		{name: "hgetex persist", op: func(tx *kv.Tx) error {
			_, err := tx.HGetEx([]byte("h2"), kv.HGetExPersist, 0, bs("x"))
			return err
		}, want: nil},
		{name: "hexpire past deletes", op: func(tx *kv.Tx) error {
			if err := hexpire("h2", far, "x")(tx); err != nil {
				return err
			}
			return hexpire("h2", now, "x")(tx)
		}, want: nil},
		{name: "rename keeps", op: func(tx *kv.Tx) error {
			if err := hset("h3", "p", "1", "q", "2")(tx); err != nil {
				return err
			}
			if err := hexpire("h3", far, "p")(tx); err != nil {
				return err
			}
			_, err := tx.Rename([]byte("h3"), []byte("h4"), false)
			return err
		}, want: map[int]int64{0: 1}},
		{name: "rename over a ttl hash", op: func(tx *kv.Tx) error {
			if err := hset("h5", "p", "1")(tx); err != nil {
				return err
			}
			if err := hexpire("h5", far, "p")(tx); err != nil {
				return err
			}
			_, err := tx.Rename([]byte("h5"), []byte("h4"), false)
			return err
		}, want: map[int]int64{0: 1}},
		{name: "copy", op: func(tx *kv.Tx) error { _, err := tx.Copy([]byte("h4"), []byte("h6"), 0, false); return err }, want: map[int]int64{0: 2}},
		{name: "copy to db1", op: func(tx *kv.Tx) error { _, err := tx.Copy([]byte("h4"), []byte("h6"), 1, false); return err }, want: map[int]int64{0: 2, 1: 1}},
		{name: "copy replace by string", op: func(tx *kv.Tx) error {
			if _, err := tx.Set([]byte("s"), []byte("v"), kv.SetOptions{}); err != nil {
				return err
			}
			_, err := tx.Copy([]byte("s"), []byte("h6"), 1, true)
			return err
		}, want: map[int]int64{0: 2}},
		{name: "move", op: func(tx *kv.Tx) error { _, err := tx.Move([]byte("h6"), 2); return err }, want: map[int]int64{0: 1, 2: 1}},
		{name: "swapdb", op: func(tx *kv.Tx) error { return tx.SwapDB(2, 5) }, want: map[int]int64{0: 1, 5: 1}},
		{name: "set over hash", op: func(tx *kv.Tx) error {
			_, err := tx.Set([]byte("h4"), []byte("v"), kv.SetOptions{})
			return err
		}, want: map[int]int64{5: 1}},
		{name: "del", op: inDB(5, func(tx *kv.Tx) error { _, err := tx.Del(bs("h6")); return err }), want: nil},
		{name: "flushdb", op: inDB(5, func(tx *kv.Tx) error {
			if err := hset("f", "a", "1")(tx); err != nil {
				return err
			}
			if err := hexpire("f", far, "a")(tx); err != nil {
				return err
			}
			return tx.FlushDB()
		}), want: nil},
		{name: "key expiry hides before reap", op: func(tx *kv.Tx) error {
			if err := hset("k", "a", "1")(tx); err != nil {
				return err
			}
			if err := hexpire("k", far, "a")(tx); err != nil {
				return err
			}
			_, err := tx.Expire([]byte("k"), near, kv.ExpireAlways)
			return err
		}, advance: 2 * time.Second, want: nil},
		{name: "key expiry reaped", op: func(tx *kv.Tx) error { return nil }, reap: true, want: nil},
		{name: "a key expiry on a ttl hash", op: func(tx *kv.Tx) error {
			now := tx.Now()
			for _, k := range []string{"e1", "e2"} {
				if err := hset(k, "a", "1")(tx); err != nil {
					return err
				}
				if err := hexpire(k, now+3_600_000, "a")(tx); err != nil {
					return err
				}
				if _, err := tx.Expire([]byte(k), now+1_000, kv.ExpireAlways); err != nil {
					return err
				}
			}
			return nil
		}, want: map[int]int64{0: 2}},
		{name: "expired ttl hashes among more due keys", op: func(tx *kv.Tx) error {
			// More due keys than hashes with field expiries: the field
			// expiry index is walked instead of the due keys.
			for i := range 5 {
				if _, err := tx.Set([]byte{'s', byte('0' + i)}, []byte("v"), kv.SetOptions{ExpireAt: tx.Now() + 1_000}); err != nil {
					return err
				}
			}
			return nil
		}, advance: 2 * time.Second, want: nil},
		{name: "expired ttl hash among fewer due keys", op: func(tx *kv.Tx) error {
			now := tx.Now()
			for _, k := range []string{"p1", "p2", "p3", "p4", "p5", "p6", "p7", "p8"} {
				if err := hset(k, "a", "1")(tx); err != nil {
					return err
				}
				if err := hexpire(k, now+3_600_000, "a")(tx); err != nil {
					return err
				}
			}
			return nil
		}, want: map[int]int64{0: 8}},
		{name: "expired keys reaped", op: func(tx *kv.Tx) error { return tx.FlushDB() }, reap: true, want: nil},
		{name: "lapsed field ttl with a persistent field left", op: func(tx *kv.Tx) error {
			now := tx.Now()
			if err := hset("l", "a", "1", "b", "2")(tx); err != nil {
				return err
			}
			return hexpire("l", now+1_000, "a")(tx)
		}, want: map[int]int64{0: 1}},
		{name: "lapsed before reap", op: func(tx *kv.Tx) error { return nil }, advance: 2 * time.Second, want: nil},
		{name: "lapsed reaped", op: func(tx *kv.Tx) error { return nil }, reap: true, want: nil},
		{name: "gone hash", op: func(tx *kv.Tx) error {
			now := tx.Now()
			if err := hset("g", "a", "1")(tx); err != nil {
				return err
			}
			return hexpire("g", now+1_000, "a")(tx)
		}, advance: 2 * time.Second, want: nil},
		{name: "gone hash reaped", op: func(tx *kv.Tx) error { return nil }, reap: true, want: nil},
		{name: "a live ttl among lapsed ones", op: func(tx *kv.Tx) error {
			now := tx.Now()
			if err := hset("m", "a", "1", "b", "2")(tx); err != nil {
				return err
			}
			if err := hexpire("m", now+1_000, "a")(tx); err != nil {
				return err
			}
			return hexpire("m", now+10_000, "b")(tx)
		}, advance: 2 * time.Second, want: map[int]int64{0: 1}},
		{name: "flushall", op: func(tx *kv.Tx) error {
			tx.Use(7)
			if err := hset("z", "a", "1")(tx); err != nil {
				return err
			}
			if err := hexpire("z", far, "a")(tx); err != nil {
				return err
			}
			return tx.FlushAll()
		}, want: nil},
	}
	for _, step := range steps {
		do(t, s, step.op)
		c.Advance(step.advance)
		if step.reap {
			for _, src := range []expiry.Source{s.Sources()[0], s.FieldSources()[0]} {
				if _, err := expiry.Drain(t.Context(), src, c.Now(), 0, 0); err != nil {
					t.Fatal(err)
				}
			}
		}
		var want [kv.NumDBs]int64
		for db, n := range step.want {
			want[db] = n
		}
		if got := subexpiries(t, s); got != want {
			t.Fatalf("%s: subexpiry %v, want %v", step.name, got, want)
		}
		// The consistency checker recounts the records.
		if err := s.Check(t.Context()); err != nil {
			t.Fatalf("%s: %v", step.name, err)
		}
	}
}

func TestSubexpirySurvivesReopen(t *testing.T) {
	s, st, c, _, _ := newStore(t)
	far := c.Now().UnixMilli() + 3_600_000
	do(t, s, func(tx *kv.Tx) error {
		for i := range 6 {
			k := []byte{'h', byte('0' + i)}
			if _, err := tx.HSet(k, bs("a", "1", "b", "2")); err != nil {
				return err
			}
			if i%2 == 0 {
				if _, err := tx.HExpire(k, far, kv.HExpireAlways, bs("a")); err != nil {
					return err
				}
			}
		}
		return tx.SwapDB(0, 4)
	})
	before := subexpiries(t, s)
	if before[4] != 3 {
		t.Fatalf("before reopen %v", before)
	}
	s2, err := kv.Open(t.Context(), kv.Options{Store: st, Now: c.Now})
	if err != nil {
		t.Fatal(err)
	}
	if got := subexpiries(t, s2); got != before {
		t.Fatalf("after reopen %v, want %v", got, before)
	}
	infos, err := s2.Keyspace(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(infos) != 1 || infos[0] != (kv.KeyspaceInfo{DB: 4, Keys: 6, Subexpiry: 3}) {
		t.Fatalf("keyspace %+v", infos)
	}
}
