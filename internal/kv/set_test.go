package kv_test

import (
	"errors"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/mayfly/mayfly/internal/expiry"
	"github.com/mayfly/mayfly/internal/kv"
	"pgregory.net/rapid"
)

func smembers(t *testing.T, s *kv.Store, key string) []string {
	t.Helper()
	var out [][]byte
	do(t, s, func(tx *kv.Tx) (err error) { out, err = tx.SMembers([]byte(key)); return })
	return strs(out)
}

func TestSetBasicsAndOps(t *testing.T) {
	s, c, rec := collStore(t)
	do(t, s, func(tx *kv.Tx) error {
		if n, _ := tx.SAdd([]byte("a"), bs("1", "2", "3", "2")); n != 3 {
			t.Errorf("SADD = %d", n)
		}
		if n, _ := tx.SAdd([]byte("a"), bs("1")); n != 0 {
			t.Errorf("SADD existing = %d", n)
		}
		if _, err := tx.SAdd([]byte("b"), bs("2", "3", "4")); err != nil {
			return err
		}
		got, _ := tx.SIsMember([]byte("a"), bs("1", "9"))
		if !slices.Equal(got, []bool{true, false}) {
			t.Errorf("SMISMEMBER %v", got)
		}
		if n, _ := tx.SCard([]byte("a")); n != 3 {
			t.Errorf("SCARD %d", n)
		}
		for op, want := range map[kv.SetOp][]string{
			kv.SetUnion: {"1", "2", "3", "4"},
			kv.SetInter: {"2", "3"},
			kv.SetDiff:  {"1"},
		} {
			got, err := tx.SetCompute(op, bs("a", "b"))
			if err != nil || !slices.Equal(strs(got), want) {
				t.Errorf("op %d = %q %v", op, got, err)
			}
		}
		if got, _ := tx.SetCompute(kv.SetInter, bs("a", "nokey")); len(got) != 0 {
			t.Errorf("SINTER with a missing key %q", got)
		}
		if got, _ := tx.SetCompute(kv.SetDiff, bs("a", "a")); len(got) != 0 {
			t.Errorf("SDIFF a a %q", got)
		}
		if n, _ := tx.SInterCard(bs("a", "b"), 1); n != 1 {
			t.Errorf("SINTERCARD LIMIT 1 = %d", n)
		}
		if _, err := tx.Set([]byte("str"), []byte("v"), kv.SetOptions{}); err != nil {
			return err
		}
		if _, err := tx.SetCompute(kv.SetInter, bs("nokey", "str")); !errors.Is(err, kv.ErrWrongType) {
			t.Errorf("SINTER with a string: %v", err)
		}
		return nil
	})
	// *STORE replaces the destination and clears its TTL.
	now := c.Now().UnixMilli()
	do(t, s, func(tx *kv.Tx) error {
		if _, err := tx.SAdd([]byte("d"), bs("x")); err != nil {
			return err
		}
		if _, err := tx.Expire([]byte("d"), now+10_000, kv.ExpireAlways); err != nil {
			return err
		}
		if n, err := tx.SetStore(kv.SetUnion, []byte("d"), bs("a", "b")); n != 4 || err != nil {
			t.Errorf("SUNIONSTORE = %d %v", n, err)
		}
		_, st, err := tx.ExpireAt([]byte("d"))
		if st != kv.TTLPersistent {
			t.Errorf("SUNIONSTORE kept the TTL")
		}
		return err
	})
	if got := smembers(t, s, "d"); !slices.Equal(got, []string{"1", "2", "3", "4"}) {
		t.Fatalf("stored %v", got)
	}
	rec.names()
	do(t, s, func(tx *kv.Tx) error {
		n, err := tx.SetStore(kv.SetInter, []byte("d"), bs("a", "nokey"))
		if n != 0 || err != nil {
			t.Errorf("empty SINTERSTORE = %d %v", n, err)
		}
		return err
	})
	if got := rec.names(); !slices.Equal(got, []string{"del:d"}) {
		t.Fatalf("events %v", got)
	}
	do(t, s, func(tx *kv.Tx) error {
		ok, err := tx.SMove([]byte("a"), []byte("str"), []byte("1"))
		if !errors.Is(err, kv.ErrWrongType) {
			t.Errorf("SMOVE to a string: %v %v", ok, err)
		}
		if ok, _ := tx.SMove([]byte("nokey"), []byte("str"), []byte("1")); ok {
			t.Error("SMOVE from a missing key")
		}
		if ok, _ := tx.SMove([]byte("a"), []byte("a"), []byte("1")); !ok {
			t.Error("SMOVE onto itself of a member")
		}
		if ok, _ := tx.SMove([]byte("a"), []byte("e"), []byte("1")); !ok {
			t.Error("SMOVE")
		}
		n, err := tx.SRem([]byte("a"), bs("2", "3", "9"))
		if n != 2 {
			t.Errorf("SREM = %d", n)
		}
		return err
	})
	want := []string{"srem:a", "sadd:e", "srem:a", "del:a"}
	if got := rec.names(); !slices.Equal(got, want) {
		t.Fatalf("events %v, want %v", got, want)
	}
}

func TestSetRandomAndPop(t *testing.T) {
	s, _, rec := collStore(t)
	k := []byte("s")
	do(t, s, func(tx *kv.Tx) error {
		var ms [][]byte
		for i := range 3000 {
			ms = append(ms, []byte("member:"+strconv.Itoa(i)))
		}
		_, err := tx.SAdd(k, ms)
		return err
	})
	do(t, s, func(tx *kv.Tx) error {
		for _, n := range []int64{1, 10, 2000, 5000, -20} {
			out, ok, err := tx.SRandMember(k, n)
			if err != nil || !ok {
				return err
			}
			want := n
			if n < 0 {
				want = -n
			}
			if int64(len(out)) != min(want, 3000) {
				t.Errorf("SRANDMEMBER %d gave %d", n, len(out))
			}
			if n > 0 {
				seen := map[string]bool{}
				for _, m := range out {
					if seen[string(m)] {
						t.Errorf("SRANDMEMBER %d repeated %q", n, m)
					}
					seen[string(m)] = true
				}
			}
		}
		return nil
	})
	rec.names()
	do(t, s, func(tx *kv.Tx) error {
		out, ok, err := tx.SPop(k, 2990)
		if len(out) != 2990 || !ok || err != nil {
			t.Errorf("SPOP 2990 = %d %v %v", len(out), ok, err)
		}
		if n, _ := tx.SCard(k); n != 10 {
			t.Errorf("SCARD after SPOP = %d", n)
		}
		out, _, _ = tx.SPop(k, 100)
		if len(out) != 10 {
			t.Errorf("SPOP past the size = %d", len(out))
		}
		return nil
	})
	if got := rec.names(); !slices.Equal(got, []string{"spop:s", "spop:s", "del:s"}) {
		t.Fatalf("events %v", got)
	}
}

// TestSetModel runs random set commands against a map.
func TestSetModel(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		s, _, _ := newStoreT(rt)
		model := map[string]map[string]bool{"a": {}, "b": {}}
		key := rapid.SampledFrom([]string{"a", "b"})
		mem := rapid.SampledFrom([]string{"1", "2", "3", "4"})
		for range 40 {
			tx := s.Begin()
			k := key.Draw(rt, "key")
			switch rapid.IntRange(0, 3).Draw(rt, "op") {
			case 0:
				m := mem.Draw(rt, "m")
				n, _ := tx.SAdd([]byte(k), bs(m))
				if (n == 1) == model[k][m] {
					rt.Fatalf("SADD %s %s = %d", k, m, n)
				}
				model[k][m] = true
			case 1:
				m := mem.Draw(rt, "m")
				n, _ := tx.SRem([]byte(k), bs(m))
				if (n == 1) != model[k][m] {
					rt.Fatalf("SREM %s %s = %d", k, m, n)
				}
				delete(model[k], m)
			case 2:
				m := mem.Draw(rt, "m")
				other := "a"
				if k == "a" {
					other = "b"
				}
				ok, _ := tx.SMove([]byte(k), []byte(other), []byte(m))
				if ok != model[k][m] {
					rt.Fatalf("SMOVE = %v", ok)
				}
				if ok {
					delete(model[k], m)
					model[other][m] = true
				}
			case 3:
				out, _, _ := tx.SPop([]byte(k), 1)
				for _, m := range out {
					if !model[k][string(m)] {
						rt.Fatalf("SPOP returned %q", m)
					}
					delete(model[k], string(m))
				}
			}
			if err := tx.Commit(); err != nil {
				rt.Fatal(err)
			}
			for _, k := range []string{"a", "b"} {
				tx = s.Begin()
				got, _ := tx.SMembers([]byte(k))
				n, _ := tx.SCard([]byte(k))
				tx.Rollback()
				var want []string
				for m := range model[k] {
					want = append(want, m)
				}
				slices.Sort(want)
				if !slices.Equal(strs(got), want) && !(len(got) == 0 && len(want) == 0) || n != int64(len(want)) {
					rt.Fatalf("set %s = %q (card %d), model %v", k, got, n, want)
				}
			}
		}
	})
}

// TestBigCollectionsConstantWork checks that DEL and RENAME of collections
// write a constant number of records whatever their size, and that expiry
// hands the elements to the garbage collector.
func TestBigCollectionsConstantWork(t *testing.T) {
	s, c, _ := collStore(t)
	const n = 4000
	fill := map[string]func(tx *kv.Tx, k []byte) error{
		"list": func(tx *kv.Tx, k []byte) error {
			vals := make([][]byte, n)
			for i := range vals {
				vals[i] = []byte(strconv.Itoa(i))
			}
			_, err := tx.Push(k, kv.ListRight, false, vals)
			return err
		},
		"hash": func(tx *kv.Tx, k []byte) error {
			pairs := make([][]byte, 0, 2*n)
			for i := range n {
				pairs = append(pairs, []byte(strconv.Itoa(i)), []byte("v"))
			}
			_, err := tx.HSet(k, pairs)
			return err
		},
		"set": func(tx *kv.Tx, k []byte) error {
			ms := make([][]byte, n)
			for i := range ms {
				ms[i] = []byte(strconv.Itoa(i))
			}
			_, err := tx.SAdd(k, ms)
			return err
		},
		"zset": func(tx *kv.Tx, k []byte) error {
			scores := make([]float64, n)
			ms := make([][]byte, n)
			for i := range ms {
				scores[i], ms[i] = float64(i), []byte(strconv.Itoa(i))
			}
			_, err := tx.ZAdd(k, kv.ZAddOptions{}, scores, ms)
			return err
		},
	}
	for name, f := range fill {
		k := []byte(name)
		do(t, s, func(tx *kv.Tx) error { return f(tx, k) })
		for _, op := range []struct {
			what string
			run  func(tx *kv.Tx) error
		}{
			{"rename", func(tx *kv.Tx) error { _, err := tx.Rename(k, []byte(name+"2"), false); return err }},
			{"del", func(tx *kv.Tx) error { _, err := tx.Del(bs(name + "2")); return err }},
		} {
			tx := s.Begin()
			if err := op.run(tx); err != nil {
				t.Fatal(err)
			}
			if w := tx.Batch().Count(); w > 6 {
				t.Errorf("%s of a %d-element %s wrote %d records", op.what, n, name, w)
			}
			if err := tx.Commit(); err != nil {
				t.Fatal(err)
			}
		}
		// Expiry: the key source deletes the record, the collector the
		// elements.
		do(t, s, func(tx *kv.Tx) error { return f(tx, k) })
		do(t, s, func(tx *kv.Tx) error {
			_, err := tx.Expire(k, c.Now().UnixMilli()+10, kv.ExpireAlways)
			return err
		})
		c.Advance(time.Second)
		if r, err := expiry.Drain(t.Context(), s.Sources()[0], c.Now(), 0, 0); err != nil || r.Items != 1 {
			t.Fatalf("%s: reap %+v %v", name, r, err)
		}
	}
	if got, err := s.CollectGarbage(t.Context(), 0); err != nil || got != 8 {
		t.Fatalf("collected %d versions %v", got, err)
	}
	if n := dbsize(t, s); n != 0 {
		t.Fatalf("dbsize %d", n)
	}
}
