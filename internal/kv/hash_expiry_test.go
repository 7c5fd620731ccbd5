package kv_test

import (
	"slices"
	"testing"
	"time"

	"github.com/mayfly/mayfly/internal/expiry"
	"github.com/mayfly/mayfly/internal/kv"
)

func fieldSource(t *testing.T, s *kv.Store, db int) expiry.Source {
	t.Helper()
	src := s.FieldSources()[db]
	if src.Kind() != expiry.KindRedisField {
		t.Fatalf("kind %q", src.Kind())
	}
	return src
}

func TestHExpireCodesAndConditions(t *testing.T) {
	s, c, rec := collStore(t)
	k := []byte("h")
	now := c.Now().UnixMilli()
	far := now + 3_600_000
	do(t, s, func(tx *kv.Tx) error {
		_, err := tx.HSet(k, bs("a", "1", "b", "2", "c", "3"))
		return err
	})
	rec.names()
	cases := []struct {
		name   string
		at     int64
		cond   kv.HExpireCond
		fields []string
		want   []int64
	}{
		{"missing field", far, kv.HExpireAlways, []string{"zz"}, []int64{-2}},
		{"XX on persistent", far, kv.HExpireXX, []string{"a"}, []int64{0}},
		{"GT on persistent", far, kv.HExpireGT, []string{"a"}, []int64{0}},
		{"LT on persistent sets", far, kv.HExpireLT, []string{"a"}, []int64{1}},
		{"NX on volatile", far - 5, kv.HExpireNX, []string{"a"}, []int64{0}},
		{"GT smaller", far - 5, kv.HExpireGT, []string{"a"}, []int64{0}},
		{"GT equal", far, kv.HExpireGT, []string{"a"}, []int64{0}},
		{"LT smaller", far - 5, kv.HExpireLT, []string{"a"}, []int64{1}},
		{"NX on persistent", far, kv.HExpireNX, []string{"b"}, []int64{1}},
		{"mixed", far + 10, kv.HExpireNX, []string{"a", "c", "zz"}, []int64{0, 1, -2}},
		{"past deletes", now, kv.HExpireAlways, []string{"c"}, []int64{2}},
	}
	for _, cs := range cases {
		do(t, s, func(tx *kv.Tx) error {
			got, err := tx.HExpire(k, cs.at, cs.cond, bs(cs.fields...))
			if err != nil || !slices.Equal(got, cs.want) {
				t.Errorf("%s: %v %v, want %v", cs.name, got, err, cs.want)
			}
			return err
		})
	}
	want := []string{"hexpire:h", "hexpire:h", "hexpire:h", "hexpire:h", "hdel:h"}
	if got := rec.names(); !slices.Equal(got, want) {
		t.Fatalf("events %v, want %v", got, want)
	}
	do(t, s, func(tx *kv.Tx) error {
		got, _ := tx.HFieldExpireAt(k, bs("a", "b", "c", "zz"))
		if !slices.Equal(got, []int64{far - 5, far, -2, -2}) {
			t.Errorf("expire times %v", got)
		}
		got, _ = tx.HPersist(k, bs("a", "a", "zz"))
		if !slices.Equal(got, []int64{1, -1, -2}) {
			t.Errorf("HPERSIST %v", got)
		}
		got, _ = tx.HExpire([]byte("nokey"), far, kv.HExpireAlways, bs("a", "b"))
		if !slices.Equal(got, []int64{-2, -2}) {
			t.Errorf("HEXPIRE on a missing key %v", got)
		}
		return nil
	})
	if got := rec.names(); !slices.Equal(got, []string{"hpersist:h"}) {
		t.Fatalf("events %v", got)
	}
	// HSET clears the field's expiry, HINCRBY keeps it.
	do(t, s, func(tx *kv.Tx) error {
		if _, err := tx.HExpire(k, far, kv.HExpireAlways, bs("a", "b")); err != nil {
			return err
		}
		if _, err := tx.HSet(k, bs("a", "5")); err != nil {
			return err
		}
		if _, err := tx.HIncrBy(k, []byte("b"), 1); err != nil {
			return err
		}
		got, _ := tx.HFieldExpireAt(k, bs("a", "b"))
		if !slices.Equal(got, []int64{-1, far}) {
			t.Errorf("after HSET/HINCRBY %v", got)
		}
		return nil
	})
	// The last field going with a past time takes the key.
	rec.names()
	do(t, s, func(tx *kv.Tx) error {
		got, _ := tx.HExpire(k, 1, kv.HExpireAlways, bs("a", "b"))
		if !slices.Equal(got, []int64{2, 2}) {
			t.Errorf("HEXPIREAT 1 = %v", got)
		}
		return nil
	})
	if got := rec.names(); !slices.Equal(got, []string{"hdel:h", "del:h"}) {
		t.Fatalf("events %v", got)
	}
	if n := dbsize(t, s); n != 0 {
		t.Fatalf("dbsize %d", n)
	}
}

func TestFieldExpiryHidesThenReaps(t *testing.T) {
	s, c, rec := collStore(t)
	k := []byte("h")
	now := c.Now().UnixMilli()
	do(t, s, func(tx *kv.Tx) error {
		if _, err := tx.HSet(k, bs("a", "1", "b", "2", "c", "3")); err != nil {
			return err
		}
		if _, err := tx.HExpire(k, now+1000, kv.HExpireAlways, bs("a")); err != nil {
			return err
		}
		_, err := tx.HExpire(k, now+2000, kv.HExpireAlways, bs("b"))
		return err
	})
	src := fieldSource(t, s, 0)
	due, ok, err := src.NextDue(t.Context())
	if err != nil || !ok || due.UnixMilli() != now+1001 {
		t.Fatalf("next due %v %v %v", due, ok, err)
	}
	// Alive at exactly its expiry millisecond.
	c.Advance(1000 * time.Millisecond)
	if got := hgetall(t, s, "h"); len(got) != 3 {
		t.Fatalf("at expiry %v", got)
	}
	c.Advance(1500 * time.Millisecond)
	n, _, _, err := src.(expiry.Counter).CountDue(t.Context(), c.Now())
	if err != nil || n != 2 {
		t.Fatalf("count due %d %v", n, err)
	}
	rec.names()
	r, err := expiry.Drain(t.Context(), src, c.Now(), 0, 10)
	if err != nil || r.Items != 2 || r.More || !slices.Equal(r.Due, []int64{now + 1001, now + 2001}) {
		t.Fatalf("reap %+v %v", r, err)
	}
	if got := rec.names(); !slices.Equal(got, []string{"hexpired:h"}) {
		t.Fatalf("events %v", got)
	}
	if _, ok, _ := src.NextDue(t.Context()); ok {
		t.Fatal("index not empty after reap")
	}
	do(t, s, func(tx *kv.Tx) error {
		n, err := tx.HLen(k)
		if n != 1 {
			t.Errorf("HLEN after reap = %d", n)
		}
		return err
	})
	// The last field reaped takes the key, with `del`.
	do(t, s, func(tx *kv.Tx) error {
		_, err := tx.HExpire(k, c.Now().UnixMilli()+10, kv.HExpireAlways, bs("c"))
		return err
	})
	c.Advance(time.Second)
	rec.names()
	if r, err := expiry.Drain(t.Context(), src, c.Now(), 0, 0); err != nil || r.Items != 1 {
		t.Fatalf("reap %+v %v", r, err)
	}
	if got := rec.names(); !slices.Equal(got, []string{"hexpired:h", "del:h"}) {
		t.Fatalf("events %v", got)
	}
	if n := dbsize(t, s); n != 0 {
		t.Fatalf("dbsize %d", n)
	}
}

func TestFieldExpiryLazyOnAccess(t *testing.T) {
	s, c, rec := collStore(t)
	k := []byte("h")
	now := c.Now().UnixMilli()
	do(t, s, func(tx *kv.Tx) error {
		if _, err := tx.HSet(k, bs("a", "1", "b", "2", "c", "3")); err != nil {
			return err
		}
		_, err := tx.HExpire(k, now+100, kv.HExpireAlways, bs("a", "b"))
		return err
	})
	c.Advance(time.Second)
	rec.names()
	do(t, s, func(tx *kv.Tx) error {
		if n, _ := tx.HLen(k); n != 1 {
			t.Errorf("HLEN counts expired fields: %d", n)
		}
		if ok, _ := tx.HExists(k, []byte("a")); ok {
			t.Error("HEXISTS sees an expired field")
		}
		vals, _ := tx.HMGet(k, bs("a", "b", "c"))
		if vals[0] != nil || vals[1] != nil || string(vals[2]) != "3" {
			t.Errorf("HMGET %q", vals)
		}
		out, _, _ := tx.HRandField(k, -5)
		for _, p := range out {
			if string(p.Field) != "c" {
				t.Errorf("HRANDFIELD returned %q", p.Field)
			}
		}
		got, _ := tx.HFieldExpireAt(k, bs("a", "b", "c"))
		if !slices.Equal(got, []int64{-2, -2, -1}) {
			t.Errorf("HTTL %v", got)
		}
		return nil
	})
	if got := rec.names(); !slices.Equal(got, []string{"hexpired:h"}) {
		t.Fatalf("events %v", got)
	}
	// Nothing left for the sweeper: the access deleted them.
	if r, err := expiry.Drain(t.Context(), fieldSource(t, s, 0), c.Now(), 0, 0); err != nil || r.Items != 0 {
		t.Fatalf("reap after lazy %+v %v", r, err)
	}
}

func TestFieldExpiryAfterDelRenameMoveCopy(t *testing.T) {
	s, c, rec := collStore(t)
	now := c.Now().UnixMilli()
	do(t, s, func(tx *kv.Tx) error {
		for _, k := range []string{"gone", "renamed", "moved", "copied"} {
			if _, err := tx.HSet([]byte(k), bs("a", "1", "b", "2")); err != nil {
				return err
			}
			if _, err := tx.HExpire([]byte(k), now+100, kv.HExpireAlways, bs("a")); err != nil {
				return err
			}
		}
		if _, err := tx.Del(bs("gone")); err != nil {
			return err
		}
		if _, err := tx.Rename([]byte("renamed"), []byte("renamed2"), false); err != nil {
			return err
		}
		if _, err := tx.Move([]byte("moved"), 3); err != nil {
			return err
		}
		_, err := tx.Copy([]byte("copied"), []byte("copy"), 0, false)
		return err
	})
	c.Advance(time.Second)
	rec.names()
	// Nothing touched the hashes since: the sources find them by their
	// new names.
	r, err := expiry.Drain(t.Context(), fieldSource(t, s, 0), c.Now(), 0, 2)
	if err != nil || r.Items != 3 || r.More {
		t.Fatalf("reap db0 %+v %v", r, err)
	}
	if r, err := expiry.Drain(t.Context(), fieldSource(t, s, 3), c.Now(), 0, 0); err != nil || r.Items != 1 {
		t.Fatalf("reap db3 %+v %v", r, err)
	}
	got := rec.names()
	slices.Sort(got)
	if want := []string{"hexpired:copied", "hexpired:copy", "hexpired:moved", "hexpired:renamed2"}; !slices.Equal(got, want) {
		t.Fatalf("events %v, want %v", got, want)
	}
	for _, k := range []string{"renamed2", "copied", "copy"} {
		if got := hgetall(t, s, k); len(got) != 1 || got["b"] != "2" {
			t.Errorf("%s: %v", k, got)
		}
	}
	for _, db := range []int{0, 3} {
		if _, ok, _ := fieldSource(t, s, db).NextDue(t.Context()); ok {
			t.Fatalf("entries left in db %d's field index", db)
		}
	}
}

func TestHGetExHSetExHGetDel(t *testing.T) {
	s, c, rec := collStore(t)
	k := []byte("h")
	now := c.Now().UnixMilli()
	do(t, s, func(tx *kv.Tx) error {
		ok, err := tx.HSetEx(k, kv.HSetExFXX, kv.HSetExClear, 0, bs("a", "1"))
		if ok || err != nil {
			t.Errorf("HSETEX FXX on a missing key = %v %v", ok, err)
		}
		ok, _ = tx.HSetEx(k, kv.HSetExFNX, kv.HSetExAt, now+5000, bs("a", "1", "b", "2"))
		if !ok {
			t.Error("HSETEX FNX did not set")
		}
		ok, _ = tx.HSetEx(k, kv.HSetExFNX, kv.HSetExClear, 0, bs("a", "9", "c", "3"))
		if ok {
			t.Error("HSETEX FNX set over an existing field")
		}
		ok, _ = tx.HSetEx(k, kv.HSetExAlways, kv.HSetExKeepTTL, 0, bs("a", "10"))
		if !ok {
			t.Error("HSETEX KEEPTTL did not set")
		}
		got, _ := tx.HFieldExpireAt(k, bs("a", "b"))
		if !slices.Equal(got, []int64{now + 5000, now + 5000}) {
			t.Errorf("after KEEPTTL %v", got)
		}
		vals, _ := tx.HGetEx(k, kv.HGetExPersist, 0, bs("a", "zz"))
		if string(vals[0]) != "10" || vals[1] != nil {
			t.Errorf("HGETEX PERSIST %q", vals)
		}
		got, _ = tx.HFieldExpireAt(k, bs("a"))
		if got[0] != -1 {
			t.Errorf("HGETEX PERSIST left %v", got)
		}
		vals, _ = tx.HGetDel(k, bs("b", "zz"))
		if string(vals[0]) != "2" || vals[1] != nil {
			t.Errorf("HGETDEL %q", vals)
		}
		vals, _ = tx.HGetEx(k, kv.HGetExAt, now, bs("a"))
		if string(vals[0]) != "10" {
			t.Errorf("HGETEX EXAT now %q", vals)
		}
		return nil
	})
	want := []string{"hset:h", "hexpire:h", "hset:h", "hpersist:h", "hdel:h", "hdel:h", "del:h"}
	if got := rec.names(); !slices.Equal(got, want) {
		t.Fatalf("events %v, want %v", got, want)
	}
	if n := dbsize(t, s); n != 0 {
		t.Fatalf("dbsize %d", n)
	}
}

func TestFieldReapBudget(t *testing.T) {
	s, c, _ := collStore(t)
	now := c.Now().UnixMilli()
	do(t, s, func(tx *kv.Tx) error {
		for _, k := range []string{"x", "y"} {
			var pairs, fields [][]byte
			for i := range 15 {
				f := []byte{'f', byte('a' + i)}
				pairs = append(pairs, f, []byte("v"))
				fields = append(fields, f)
			}
			if _, err := tx.HSet([]byte(k), pairs); err != nil {
				return err
			}
			if _, err := tx.HExpire([]byte(k), now+10, kv.HExpireAlways, fields); err != nil {
				return err
			}
		}
		return nil
	})
	c.Advance(time.Minute)
	src := fieldSource(t, s, 0)
	r, err := expiry.Drain(t.Context(), src, c.Now(), 10, 4)
	if err != nil || r.Items != 10 || !r.More {
		t.Fatalf("reap %+v %v", r, err)
	}
	if n, _, _, _ := src.(expiry.Counter).CountDue(t.Context(), c.Now()); n != 20 {
		t.Fatalf("count due %d", n)
	}
	r, err = expiry.Drain(t.Context(), src, c.Now(), 0, 7)
	if err != nil || r.Items != 20 || r.More {
		t.Fatalf("reap rest %+v %v", r, err)
	}
	if n := dbsize(t, s); n != 0 {
		t.Fatalf("dbsize %d", n)
	}
}
