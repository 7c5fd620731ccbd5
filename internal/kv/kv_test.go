package kv_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/mayfly/mayfly/internal/expiry"
	"github.com/mayfly/mayfly/internal/kv"
	"github.com/mayfly/mayfly/internal/storage"
)

// clock is a fake clock tests move by hand.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

type recorder struct {
	mu     sync.Mutex
	events []kv.Event
}

func (r *recorder) Committed(ev []kv.Event, _ []kv.Touch) {
	r.mu.Lock()
	r.events = append(r.events, ev...)
	r.mu.Unlock()
}

func (r *recorder) names() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, e := range r.events {
		out = append(out, e.Name+":"+e.Key)
	}
	r.events = nil
	return out
}

type waker struct{ due []time.Time }

func (w *waker) Wake(t time.Time) { w.due = append(w.due, t) }

func newStore(t testing.TB) (*kv.Store, *storage.Store, *clock, *recorder, *waker) {
	t.Helper()
	st, err := storage.Open(storage.Options{Dir: "mem", InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	c := &clock{t: time.UnixMilli(1_700_000_000_000)}
	w := &waker{}
	s, err := kv.Open(t.Context(), kv.Options{Store: st, Now: c.Now, Waker: w})
	if err != nil {
		t.Fatal(err)
	}
	r := &recorder{}
	s.SetObserver(r)
	s.SetNotifyMask(kv.ClassGeneric | kv.ClassString | kv.ClassExpired)
	return s, st, c, r, w
}

// do runs f in one Tx and commits it.
func do(t testing.TB, s *kv.Store, f func(tx *kv.Tx) error) {
	t.Helper()
	tx := s.Begin()
	if err := f(tx); err != nil {
		tx.Rollback()
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
}

func dbsize(t *testing.T, s *kv.Store) int64 {
	t.Helper()
	var n int64
	do(t, s, func(tx *kv.Tx) (err error) { n, err = tx.DBSize(); return })
	return n
}

func TestExpiryHidesThenReapDeletes(t *testing.T) {
	s, _, c, rec, w := newStore(t)
	now := c.Now().UnixMilli()
	do(t, s, func(tx *kv.Tx) error {
		_, err := tx.Set([]byte("a"), []byte("1"), kv.SetOptions{ExpireAt: now + 1000})
		if err != nil {
			return err
		}
		_, err = tx.Set([]byte("b"), []byte("2"), kv.SetOptions{})
		return err
	})
	if len(w.due) != 1 || w.due[0].UnixMilli() != now+1001 {
		t.Fatalf("wake = %v", w.due)
	}
	if got := rec.names(); !slices.Equal(got, []string{"set:a", "expire:a", "set:b"}) {
		t.Fatalf("events %v", got)
	}
	// Still alive at exactly its expiry millisecond.
	c.Advance(1000 * time.Millisecond)
	if n := dbsize(t, s); n != 2 {
		t.Fatalf("dbsize at expireAt = %d", n)
	}
	c.Advance(time.Millisecond)
	if n := dbsize(t, s); n != 1 {
		t.Fatalf("dbsize after expiry = %d", n)
	}
	var ks [][]byte
	do(t, s, func(tx *kv.Tx) (err error) { ks, err = tx.Keys([]byte("*")); return })
	if len(ks) != 1 || string(ks[0]) != "b" {
		t.Fatalf("keys = %q", ks)
	}
	src := s.Sources()[0]
	due, ok, err := src.NextDue(t.Context())
	if err != nil || !ok || due.UnixMilli() != now+1001 {
		t.Fatalf("next due %v %v %v", due, ok, err)
	}
	r, err := expiry.Drain(t.Context(), src, c.Now(), 0, 10)
	if err != nil || r.Items != 1 || r.More || len(r.Due) != 1 || r.Due[0] != now+1001 {
		t.Fatalf("reap %+v %v", r, err)
	}
	if got := rec.names(); !slices.Equal(got, []string{"expired:a"}) {
		t.Fatalf("events %v", got)
	}
	if _, ok, _ := src.NextDue(t.Context()); ok {
		t.Fatal("index not empty after reap")
	}
	if st := s.Stats(); st.ExpiredKeys != 1 || st.LazyExpiredKeys != 0 {
		t.Fatalf("stats %+v", st)
	}
}

func TestLazyExpiryEmitsOnce(t *testing.T) {
	s, _, c, rec, _ := newStore(t)
	now := c.Now().UnixMilli()
	do(t, s, func(tx *kv.Tx) error {
		_, err := tx.Set([]byte("k"), []byte("v"), kv.SetOptions{ExpireAt: now + 10})
		return err
	})
	rec.names()
	c.Advance(time.Second)
	for range 2 {
		do(t, s, func(tx *kv.Tx) error {
			_, ok, err := tx.Get([]byte("k"))
			if ok {
				t.Error("expired key visible")
			}
			return err
		})
	}
	r, err := expiry.Drain(t.Context(), s.Sources()[0], c.Now(), 0, 0)
	if err != nil || r.Items != 0 {
		t.Fatalf("reap after lazy: %+v %v", r, err)
	}
	if got := rec.names(); !slices.Equal(got, []string{"expired:k"}) {
		t.Fatalf("events %v", got)
	}
}

func TestReapBudget(t *testing.T) {
	s, _, c, _, _ := newStore(t)
	now := c.Now().UnixMilli()
	do(t, s, func(tx *kv.Tx) error {
		for i := range 25 {
			if _, err := tx.Set([]byte{'k', byte(i)}, []byte("v"), kv.SetOptions{ExpireAt: now + int64(i)}); err != nil {
				return err
			}
		}
		return nil
	})
	c.Advance(time.Hour)
	src := s.Sources()[0]
	r, err := expiry.Drain(t.Context(), src, c.Now(), 10, 4)
	if err != nil || r.Items != 10 || !r.More {
		t.Fatalf("reap %+v %v", r, err)
	}
	if !slices.IsSorted(r.Due) {
		t.Fatalf("not earliest first: %v", r.Due)
	}
	n, _, _, err := src.(expiry.Counter).CountDue(t.Context(), c.Now())
	if err != nil || n != 15 {
		t.Fatalf("count due %d %v", n, err)
	}
	r, err = expiry.Drain(t.Context(), src, c.Now(), 0, 4)
	if err != nil || r.Items != 15 || r.More {
		t.Fatalf("reap rest %+v %v", r, err)
	}
	if n := dbsize(t, s); n != 0 {
		t.Fatalf("dbsize %d", n)
	}
}

func TestCountersSurviveReopen(t *testing.T) {
	s, st, c, _, _ := newStore(t)
	now := c.Now().UnixMilli()
	do(t, s, func(tx *kv.Tx) error {
		for i := range 10 {
			at := int64(0)
			if i%2 == 0 {
				at = now + 100_000
			}
			if _, err := tx.Set([]byte{'k', byte(i)}, []byte("v"), kv.SetOptions{ExpireAt: at}); err != nil {
				return err
			}
		}
		return tx.SwapDB(0, 3)
	})
	s2, err := kv.Open(context.Background(), kv.Options{Store: st, Now: c.Now})
	if err != nil {
		t.Fatal(err)
	}
	info, err := s2.Keyspace(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(info) != 1 || info[0] != (kv.KeyspaceInfo{DB: 3, Keys: 10, Expires: 5, AvgTTL: 100_000}) {
		t.Fatalf("keyspace %+v", info)
	}
}

func TestFlushAndRenameInOneTx(t *testing.T) {
	s, _, _, rec, _ := newStore(t)
	do(t, s, func(tx *kv.Tx) error {
		if _, err := tx.Set([]byte("a"), []byte("1"), kv.SetOptions{}); err != nil {
			return err
		}
		if err := tx.FlushDB(); err != nil {
			return err
		}
		if _, ok, err := tx.Get([]byte("a")); ok || err != nil {
			t.Errorf("flushed key visible in the same tx: %v %v", ok, err)
		}
		if _, err := tx.Set([]byte("b"), []byte("2"), kv.SetOptions{}); err != nil {
			return err
		}
		_, err := tx.Rename([]byte("b"), []byte("c"), false)
		return err
	})
	if n := dbsize(t, s); n != 1 {
		t.Fatalf("dbsize %d", n)
	}
	if got := rec.names(); !slices.Equal(got, []string{"set:a", "set:b", "rename_from:b", "rename_to:c"}) {
		t.Fatalf("events %v", got)
	}
}

func TestIncrByFloatLongDouble(t *testing.T) {
	s, _, _, _, _ := newStore(t)
	cases := []struct{ start, incr, want string }{
		{"0.1", "0.2", "0.3"},
		{"10.50", "0.1", "10.6"},
		{"5.0e3", "2.0e2", "5200"},
		{"1", "-1", "0"},
		{"-0.5", "0.5", "0"},
		{"3", "1.5", "4.5"},
	}
	for _, c := range cases {
		var got []byte
		do(t, s, func(tx *kv.Tx) (err error) {
			if _, err = tx.Set([]byte("f"), []byte(c.start), kv.SetOptions{}); err != nil {
				return err
			}
			got, err = tx.IncrByFloat([]byte("f"), []byte(c.incr))
			return err
		})
		if string(got) != c.want {
			t.Errorf("%s + %s = %s, want %s", c.start, c.incr, got, c.want)
		}
	}
}

func TestParseInt(t *testing.T) {
	for s, want := range map[string]bool{
		"0": true, "-1": true, "9223372036854775807": true, "-9223372036854775808": true,
		"9223372036854775808": false, "01": false, "+1": false, "-0": false, " 1": false, "": false, "1a": false, "-": false,
	} {
		if _, ok := kv.ParseInt([]byte(s)); ok != want {
			t.Errorf("ParseInt(%q) ok=%v", s, ok)
		}
	}
}

func TestMatch(t *testing.T) {
	cases := []struct {
		p, s string
		want bool
	}{
		{"*", "anything", true}, {"h?llo", "hello", true}, {"h*llo", "heeeello", true},
		{"h[ae]llo", "hallo", true}, {"h[ae]llo", "hillo", false}, {"h[^e]llo", "hallo", true},
		{"h[^e]llo", "hello", false}, {"h[a-b]llo", "hbllo", true}, {`h\*llo`, "h*llo", true},
		{`h\*llo`, "hello", false}, {"a*b*c", "aXXbYYc", true}, {"a*b*c", "aXXbYY", false},
		{"", "", true}, {"abc", "ab", false},
	}
	for _, c := range cases {
		if got := kv.Match([]byte(c.p), []byte(c.s), false); got != c.want {
			t.Errorf("Match(%q, %q) = %v", c.p, c.s, got)
		}
	}
}

// Ensure that a Reap continuing a pass starts after the keys the pass
// already handled, and that a key indexed behind that point during the pass
// is reaped by the next pass (a new now).
func TestReapResumesWithinAPass(t *testing.T) {
	s, _, c, _, _ := newStore(t)
	now := c.Now().UnixMilli()
	do(t, s, func(tx *kv.Tx) error {
		for i := range 10 {
			if _, err := tx.Set([]byte{'k', byte(i)}, []byte("v"), kv.SetOptions{ExpireAt: now + 10 + int64(i)}); err != nil {
				return err
			}
		}
		return nil
	})
	c.Advance(time.Hour)
	src := s.Sources()[0]
	pass := c.Now()
	r, err := expiry.Drain(t.Context(), src, pass, 4, 4)
	if err != nil || r.Items != 4 || !r.More {
		t.Fatalf("first batch %+v %v", r, err)
	}
	// Written during the pass, due before everything the pass handled.
	do(t, s, func(tx *kv.Tx) error {
		_, err := tx.Set([]byte("early"), []byte("v"), kv.SetOptions{ExpireAt: now})
		return err
	})
	r, err = expiry.Drain(t.Context(), src, pass, 0, 4)
	if err != nil || r.Items != 6 || r.More {
		t.Fatalf("rest of the pass %+v %v", r, err)
	}
	if n := dbsize(t, s); n != 0 {
		t.Fatalf("dbsize %d: the early key must be hidden already", n)
	}
	c.Advance(time.Millisecond)
	r, err = expiry.Drain(t.Context(), src, c.Now(), 0, 4)
	if err != nil || r.Items != 1 {
		t.Fatalf("next pass %+v %v, want the early key", r, err)
	}
}

// Ensure DBSIZE stays exact while the due count starts past the entries
// it has already seen: a key stored later with an earlier expiry (SET
// PXAT in the past) is still found due.
func TestDBSizeDueWatermark(t *testing.T) {
	s, _, c, _, _ := newStore(t)
	now := c.Now().UnixMilli()
	size := func() int64 {
		t.Helper()
		tx := s.Begin()
		defer tx.Rollback()
		n, err := tx.DBSize()
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	do(t, s, func(tx *kv.Tx) error {
		for i, at := range []int64{now + 10, now + 20, now + 30} {
			if _, err := tx.Set([]byte{'k', byte('0' + i)}, []byte("v"), kv.SetOptions{ExpireAt: at}); err != nil {
				return err
			}
		}
		return nil
	})
	if n := size(); n != 3 {
		t.Fatalf("DBSIZE = %d, want 3", n)
	}
	c.Advance(25 * time.Millisecond)
	if n := size(); n != 1 {
		t.Fatalf("DBSIZE after two expired = %d, want 1", n)
	}
	do(t, s, func(tx *kv.Tx) error {
		_, err := tx.Set([]byte("early"), []byte("v"), kv.SetOptions{ExpireAt: now + 5})
		return err
	})
	if n := size(); n != 1 {
		t.Fatalf("DBSIZE after storing an already expired key = %d, want 1", n)
	}
	c.Advance(10 * time.Millisecond)
	if n := size(); n != 0 {
		t.Fatalf("DBSIZE once all expired = %d, want 0", n)
	}
}

// Ensure that DBSIZE stays exact while its cached count of due keys
// follows the clock forward and back, writes of due and not yet due keys,
// a Tx that counts after writing, reaping and FLUSHDB; the consistency
// check recounts the cache after every step.
func TestDBSizeDueCountFollowsTime(t *testing.T) {
	s, _, c, _, _ := newStore(t)
	now := c.Now().UnixMilli()
	step := func(what string, want int64) {
		t.Helper()
		if n := dbsize(t, s); n != want {
			t.Fatalf("%s: DBSIZE = %d, want %d", what, n, want)
		}
		if err := s.Check(t.Context()); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	set := func(key string, at int64) {
		t.Helper()
		do(t, s, func(tx *kv.Tx) error {
			_, err := tx.Set([]byte(key), []byte("v"), kv.SetOptions{ExpireAt: at})
			return err
		})
	}
	for i, at := range []int64{now + 10, now + 20, now + 30} {
		set(fmt.Sprint("k", i), at)
	}
	set("forever", 0)
	step("none due", 4)
	c.Advance(25 * time.Millisecond)
	step("two due", 2)
	c.Advance(-10 * time.Millisecond)
	step("clock back: one due", 3)
	set("past", now)
	step("a key stored already expired", 3)
	set("k0", now+1000) // overwrites a due key with a later expiry
	step("a due key given a later expiry", 4)
	do(t, s, func(tx *kv.Tx) error {
		if _, err := tx.Set([]byte("inTx"), []byte("v"), kv.SetOptions{ExpireAt: now}); err != nil {
			return err
		}
		if n, err := tx.DBSize(); err != nil || n != 4 {
			return fmt.Errorf("DBSIZE after a write in the same Tx = %d, %v; want 4", n, err)
		}
		return nil
	})
	step("after the writing Tx", 4)
	c.Advance(20 * time.Millisecond)
	step("forward again", 2)
	if _, err := expiry.Drain(t.Context(), s.Sources()[0], c.Now(), 0, 0); err != nil {
		t.Fatal(err)
	}
	step("reaped", 2)
	do(t, s, func(tx *kv.Tx) error { return tx.FlushDB() })
	step("flushed", 0)
	set("new", now)
	step("an expired key after the flush", 0)
}
