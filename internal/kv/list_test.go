package kv_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/mayfly/mayfly/internal/kv"
	"github.com/mayfly/mayfly/internal/storage"
	"pgregory.net/rapid"
)

// collStore is newStore with the collection event classes on.
func collStore(t *testing.T) (*kv.Store, *clock, *recorder) {
	t.Helper()
	s, _, c, rec, _ := newStore(t)
	s.SetNotifyMask(kv.ClassGeneric | kv.ClassList | kv.ClassHash | kv.ClassSet | kv.ClassZSet | kv.ClassExpired)
	return s, c, rec
}

// testingT is what the store helpers need from *testing.T and *rapid.T.
type testingT interface {
	Helper()
	Fatal(args ...any)
	Cleanup(func())
	Context() context.Context
}

// newStoreT opens an in-memory store with a fake clock and every
// collection event class recorded, for property tests.
func newStoreT(t testingT) (*kv.Store, *clock, *recorder) {
	t.Helper()
	st, err := storage.Open(storage.Options{Dir: "mem", InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	c := &clock{t: time.UnixMilli(1_700_000_000_000)}
	s, err := kv.Open(t.Context(), kv.Options{Store: st, Now: c.Now})
	if err != nil {
		t.Fatal(err)
	}
	r := &recorder{}
	s.SetObserver(r)
	s.SetNotifyMask(kv.ClassGeneric | kv.ClassList | kv.ClassHash | kv.ClassSet | kv.ClassZSet | kv.ClassExpired)
	return s, c, r
}

func bs(ss ...string) [][]byte {
	out := make([][]byte, len(ss))
	for i, s := range ss {
		out[i] = []byte(s)
	}
	return out
}

func strs(bb [][]byte) []string {
	out := make([]string, len(bb))
	for i, b := range bb {
		out[i] = string(b)
	}
	return out
}

func lrange(t *testing.T, s *kv.Store, key string) []string {
	t.Helper()
	var out [][]byte
	do(t, s, func(tx *kv.Tx) (err error) { out, err = tx.LRange([]byte(key), 0, -1); return })
	return strs(out)
}

func TestListPushPopKeepsTTLAndDeletesEmpty(t *testing.T) {
	s, c, rec := collStore(t)
	k := []byte("l")
	now := c.Now().UnixMilli()
	do(t, s, func(tx *kv.Tx) error {
		if n, err := tx.Push(k, kv.ListLeft, true, bs("x")); err != nil || n != 0 {
			t.Errorf("LPUSHX on missing key = %d %v", n, err)
		}
		if n, err := tx.Push(k, kv.ListLeft, false, bs("a", "b", "c")); err != nil || n != 3 {
			t.Errorf("LPUSH = %d %v", n, err)
		}
		if _, err := tx.Expire(k, now+10_000, kv.ExpireAlways); err != nil {
			return err
		}
		_, err := tx.Push(k, kv.ListRight, false, bs("d"))
		return err
	})
	if got := lrange(t, s, "l"); !slices.Equal(got, []string{"c", "b", "a", "d"}) {
		t.Fatalf("list %v", got)
	}
	do(t, s, func(tx *kv.Tx) error {
		at, st, err := tx.ExpireAt(k)
		if err != nil || st != kv.TTLVolatile || at != now+10_000 {
			t.Errorf("RPUSH lost the TTL: %d %d %v", at, st, err)
		}
		return err
	})
	rec.names()
	do(t, s, func(tx *kv.Tx) error {
		out, ok, err := tx.Pop(k, kv.ListRight, 2)
		if err != nil || !ok || !slices.Equal(strs(out), []string{"d", "a"}) {
			t.Errorf("RPOP 2 = %q %v %v", out, ok, err)
		}
		out, _, err = tx.Pop(k, kv.ListLeft, 10)
		if !slices.Equal(strs(out), []string{"c", "b"}) {
			t.Errorf("LPOP 10 = %q", out)
		}
		return err
	})
	if got := rec.names(); !slices.Equal(got, []string{"rpop:l", "lpop:l", "del:l"}) {
		t.Fatalf("events %v", got)
	}
	if n := dbsize(t, s); n != 0 {
		t.Fatalf("dbsize %d", n)
	}
	// A list created after its predecessor was emptied starts afresh.
	do(t, s, func(tx *kv.Tx) error {
		_, err := tx.Push(k, kv.ListRight, false, bs("z"))
		return err
	})
	do(t, s, func(tx *kv.Tx) error {
		_, st, err := tx.ExpireAt(k)
		if st != kv.TTLPersistent {
			t.Errorf("new list inherited a TTL: %d", st)
		}
		return err
	})
}

func TestListIndexSetTrimInsertRemPos(t *testing.T) {
	s, _, rec := collStore(t)
	k := []byte("l")
	do(t, s, func(tx *kv.Tx) error {
		_, err := tx.Push(k, kv.ListRight, false, bs("a", "b", "c", "b", "d", "b"))
		return err
	})
	do(t, s, func(tx *kv.Tx) error {
		for idx, want := range map[int64]string{0: "a", -1: "b", 4: "d", -6: "a"} {
			v, ok, err := tx.LIndex(k, idx)
			if err != nil || !ok || string(v) != want {
				t.Errorf("LINDEX %d = %q %v %v", idx, v, ok, err)
			}
		}
		if _, ok, _ := tx.LIndex(k, 6); ok {
			t.Error("LINDEX past the end found something")
		}
		if err := tx.LSet(k, -2, []byte("D")); err != nil {
			return err
		}
		if err := tx.LSet(k, 9, []byte("x")); !errors.Is(err, kv.ErrIndexOutOfRange) {
			t.Errorf("LSET out of range: %v", err)
		}
		if err := tx.LSet([]byte("nokey"), 0, []byte("x")); !errors.Is(err, kv.ErrNoSuchKey) {
			t.Errorf("LSET missing key: %v", err)
		}
		pos, err := tx.LPos(k, []byte("b"), 1, 0, 0)
		if !slices.Equal(pos, []int64{1, 3, 5}) {
			t.Errorf("LPOS all = %v %v", pos, err)
		}
		pos, _ = tx.LPos(k, []byte("b"), -1, 2, 0)
		if !slices.Equal(pos, []int64{5, 3}) {
			t.Errorf("LPOS rank -1 count 2 = %v", pos)
		}
		pos, _ = tx.LPos(k, []byte("b"), 2, 1, 0)
		if !slices.Equal(pos, []int64{3}) {
			t.Errorf("LPOS rank 2 = %v", pos)
		}
		pos, _ = tx.LPos(k, []byte("b"), 1, 0, 2)
		if !slices.Equal(pos, []int64{1}) {
			t.Errorf("LPOS maxlen 2 = %v", pos)
		}
		return nil
	})
	if got := lrange(t, s, "l"); !slices.Equal(got, []string{"a", "b", "c", "b", "D", "b"}) {
		t.Fatalf("after LSET %v", got)
	}
	do(t, s, func(tx *kv.Tx) error {
		n, err := tx.LRem(k, -2, []byte("b"))
		if n != 2 || err != nil {
			t.Errorf("LREM -2 = %d %v", n, err)
		}
		return err
	})
	if got := lrange(t, s, "l"); !slices.Equal(got, []string{"a", "b", "c", "D"}) {
		t.Fatalf("after LREM %v", got)
	}
	do(t, s, func(tx *kv.Tx) error {
		for _, c := range []struct {
			before      bool
			pivot, val  string
			want        int64
			description string
		}{
			{true, "a", "0", 5, "before the head"},
			{false, "D", "E", 6, "after the tail"},
			{true, "D", "C", 7, "before near the tail"},
			{false, "a", "a2", 8, "after near the head"},
			{true, "zz", "x", -1, "missing pivot"},
		} {
			n, err := tx.LInsert(k, c.before, []byte(c.pivot), []byte(c.val))
			if n != c.want || err != nil {
				t.Errorf("LINSERT %s = %d %v", c.description, n, err)
			}
		}
		if n, _ := tx.LInsert([]byte("nokey"), true, []byte("a"), []byte("b")); n != 0 {
			t.Errorf("LINSERT missing key = %d", n)
		}
		return nil
	})
	if got := lrange(t, s, "l"); !slices.Equal(got, []string{"0", "a", "a2", "b", "c", "C", "D", "E"}) {
		t.Fatalf("after LINSERT %v", got)
	}
	do(t, s, func(tx *kv.Tx) error { return tx.LTrim(k, 1, -2) })
	if got := lrange(t, s, "l"); !slices.Equal(got, []string{"a", "a2", "b", "c", "C", "D"}) {
		t.Fatalf("after LTRIM %v", got)
	}
	rec.names()
	do(t, s, func(tx *kv.Tx) error { return tx.LTrim(k, 5, 2) })
	if got := rec.names(); !slices.Equal(got, []string{"ltrim:l", "del:l"}) {
		t.Fatalf("events %v", got)
	}
}

func TestListMoveAndWrongType(t *testing.T) {
	s, _, rec := collStore(t)
	do(t, s, func(tx *kv.Tx) error {
		if _, err := tx.Push([]byte("src"), kv.ListRight, false, bs("a", "b")); err != nil {
			return err
		}
		_, err := tx.Set([]byte("str"), []byte("v"), kv.SetOptions{})
		return err
	})
	rec.names()
	do(t, s, func(tx *kv.Tx) error {
		if _, _, err := tx.LMove([]byte("src"), []byte("str"), kv.ListRight, kv.ListLeft); !errors.Is(err, kv.ErrWrongType) {
			t.Errorf("LMOVE to a string: %v", err)
		}
		if _, err := tx.Push([]byte("str"), kv.ListLeft, false, bs("x")); !errors.Is(err, kv.ErrWrongType) {
			t.Errorf("LPUSH on a string: %v", err)
		}
		v, ok, err := tx.LMove([]byte("src"), []byte("dst"), kv.ListRight, kv.ListLeft)
		if string(v) != "b" || !ok || err != nil {
			t.Errorf("RPOPLPUSH = %q %v %v", v, ok, err)
		}
		v, _, _ = tx.LMove([]byte("src"), []byte("dst"), kv.ListLeft, kv.ListRight)
		if string(v) != "a" {
			t.Errorf("LMOVE LEFT RIGHT = %q", v)
		}
		if _, ok, _ := tx.LMove([]byte("src"), []byte("dst"), kv.ListLeft, kv.ListRight); ok {
			t.Error("LMOVE from a missing list moved something")
		}
		// Rotation within one list.
		v, _, _ = tx.LMove([]byte("dst"), []byte("dst"), kv.ListLeft, kv.ListRight)
		if string(v) != "b" {
			t.Errorf("rotate = %q", v)
		}
		return nil
	})
	if got := lrange(t, s, "dst"); !slices.Equal(got, []string{"a", "b"}) {
		t.Fatalf("dst %v", got)
	}
	want := []string{"lpush:dst", "rpop:src", "rpush:dst", "lpop:src", "del:src", "rpush:dst", "lpop:dst"}
	if got := rec.names(); !slices.Equal(got, want) {
		t.Fatalf("events %v, want %v", got, want)
	}
}

func TestListDeleteIsConstantAndCollected(t *testing.T) {
	s, st, _, _, _ := newStore(t)
	k := []byte("big")
	do(t, s, func(tx *kv.Tx) error {
		vals := make([][]byte, 5000)
		for i := range vals {
			vals[i] = []byte(fmt.Sprint(i))
		}
		_, err := tx.Push(k, kv.ListRight, false, vals)
		return err
	})
	// DEL writes a constant number of records, whatever the list's size.
	tx := s.Begin()
	if _, err := tx.Del([][]byte{k}); err != nil {
		t.Fatal(err)
	}
	if n := tx.Batch().Count(); n > 4 {
		t.Fatalf("DEL of a 5000-element list wrote %d records", n)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if n, err := s.CollectGarbage(t.Context(), 0); err != nil || n != 1 {
		t.Fatalf("collected %d %v", n, err)
	}
	it, err := st.NewIter([]byte{0x06}, []byte{0x07})
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	if it.First() {
		t.Fatalf("sub-keys left after collection: %x", it.Key())
	}
}

func TestListBlockingHelpers(t *testing.T) {
	s, c, _ := collStore(t)
	do(t, s, func(tx *kv.Tx) error {
		if _, _, ok, err := tx.PopFirst(bs("a", "b"), kv.ListLeft); ok || err != nil {
			t.Errorf("PopFirst on nothing: %v %v", ok, err)
		}
		if _, err := tx.Push([]byte("b"), kv.ListRight, false, bs("1", "2")); err != nil {
			return err
		}
		k, v, ok, err := tx.PopFirst(bs("a", "b"), kv.ListRight)
		if string(k) != "b" || string(v) != "2" || !ok || err != nil {
			t.Errorf("PopFirst = %q %q %v %v", k, v, ok, err)
		}
		return nil
	})
	// Yield commits, releases the store for the wait, and reopens the Tx.
	tx := s.Begin()
	if _, err := tx.Push([]byte("y"), kv.ListRight, false, bs("1")); err != nil {
		t.Fatal(err)
	}
	err := tx.Yield(func() {
		c.Advance(time.Second)
		do(t, s, func(tx2 *kv.Tx) error {
			n, err := tx2.LLen([]byte("y"))
			if n != 1 {
				t.Errorf("push before Yield not visible to another Tx: %d", n)
			}
			return err
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	if tx.Now() != c.Now().UnixMilli() {
		t.Errorf("Yield did not read the clock again")
	}
	if n, err := tx.LLen([]byte("y")); n != 1 || err != nil {
		t.Errorf("LLEN after Yield = %d %v", n, err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
}

// TestListModel runs random list commands against a slice.
func TestListModel(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		s, _, _ := newStoreT(rt)
		var model []string
		k := []byte("l")
		elem := rapid.SampledFrom([]string{"a", "b", "c", "d"})
		for i := 0; i < 60; i++ {
			tx := s.Begin()
			switch rapid.IntRange(0, 7).Draw(rt, "op") {
			case 0:
				v := elem.Draw(rt, "v")
				tx.Push(k, kv.ListLeft, false, bs(v))
				model = append([]string{v}, model...)
			case 1:
				v := elem.Draw(rt, "v")
				tx.Push(k, kv.ListRight, false, bs(v))
				model = append(model, v)
			case 2:
				n := rapid.IntRange(1, 3).Draw(rt, "n")
				out, _, _ := tx.Pop(k, kv.ListLeft, int64(n))
				want := model[:min(n, len(model))]
				if !slices.Equal(strs(out), want) {
					rt.Fatalf("LPOP %d = %q, want %q", n, out, want)
				}
				model = model[len(want):]
			case 3:
				start := rapid.IntRange(-6, 6).Draw(rt, "start")
				stop := rapid.IntRange(-6, 6).Draw(rt, "stop")
				tx.LTrim(k, int64(start), int64(stop))
				model = modelRange(model, start, stop)
			case 4:
				cnt := rapid.IntRange(-2, 2).Draw(rt, "count")
				v := elem.Draw(rt, "v")
				n, _ := tx.LRem(k, int64(cnt), []byte(v))
				var removed int
				model, removed = modelRem(model, cnt, v)
				if int(n) != removed {
					rt.Fatalf("LREM = %d, want %d", n, removed)
				}
			case 5:
				before := rapid.Bool().Draw(rt, "before")
				pivot, v := elem.Draw(rt, "pivot"), elem.Draw(rt, "v")
				tx.LInsert(k, before, []byte(pivot), []byte(v))
				if i := slices.Index(model, pivot); i >= 0 {
					if !before {
						i++
					}
					model = slices.Insert(model, i, v)
				}
			case 6:
				idx := rapid.IntRange(-5, 5).Draw(rt, "idx")
				v := elem.Draw(rt, "v")
				err := tx.LSet(k, int64(idx), []byte(v))
				j := idx
				if j < 0 {
					j += len(model)
				}
				if j >= 0 && j < len(model) {
					model[j] = v
				} else if err == nil {
					rt.Fatalf("LSET %d on %d elements succeeded", idx, len(model))
				}
			case 7:
				start := rapid.IntRange(-6, 6).Draw(rt, "start")
				stop := rapid.IntRange(-6, 6).Draw(rt, "stop")
				out, _ := tx.LRange(k, int64(start), int64(stop))
				if want := modelRange(model, start, stop); !slices.Equal(strs(out), want) {
					rt.Fatalf("LRANGE %d %d = %q, want %q", start, stop, out, want)
				}
			}
			if err := tx.Commit(); err != nil {
				rt.Fatal(err)
			}
			var got [][]byte
			var n int64
			tx = s.Begin()
			got, _ = tx.LRange(k, 0, -1)
			n, _ = tx.LLen(k)
			tx.Rollback()
			if !slices.Equal(strs(got), model) || n != int64(len(model)) {
				rt.Fatalf("list %q (len %d), model %q", got, n, model)
			}
		}
	})
}

func modelRange(l []string, start, stop int) []string {
	n := len(l)
	if start < 0 {
		start += n
	}
	if stop < 0 {
		stop += n
	}
	start = max(start, 0)
	if start > stop || start >= n {
		return []string{}
	}
	stop = min(stop, n-1)
	return slices.Clone(l[start : stop+1])
}

func modelRem(l []string, count int, v string) ([]string, int) {
	limit := count
	if limit < 0 {
		limit = -limit
	}
	drop := make([]bool, len(l))
	removed := 0
	if count >= 0 {
		for i := 0; i < len(l) && (limit == 0 || removed < limit); i++ {
			if l[i] == v {
				drop[i] = true
				removed++
			}
		}
	} else {
		for i := len(l) - 1; i >= 0 && removed < limit; i-- {
			if l[i] == v {
				drop[i] = true
				removed++
			}
		}
	}
	out := []string{}
	for i, x := range l {
		if !drop[i] {
			out = append(out, x)
		}
	}
	return out, removed
}

// Ensure that a wait that panics leaves the Tx holding the store again, so
// that the connection's recovery can roll it back and other Txs go on.
func TestYieldPanicReacquires(t *testing.T) {
	s, _, _ := newStoreT(t)
	tx := s.Begin()
	func() {
		defer func() {
			if recover() == nil {
				t.Fatal("the wait's panic was swallowed")
			}
			tx.Rollback() // would be a fatal unlock of an unlocked mutex without the lock
		}()
		tx.Yield(func() { panic("wait failed") })
	}()
	other := s.Begin()
	other.Rollback()
}
