package kv_test

import (
	"errors"
	"maps"
	"slices"
	"strconv"
	"testing"

	"github.com/mayfly/mayfly/internal/kv"
	"pgregory.net/rapid"
)

func hgetall(t *testing.T, s *kv.Store, key string) map[string]string {
	t.Helper()
	out := map[string]string{}
	do(t, s, func(tx *kv.Tx) error {
		pairs, err := tx.HGetAll([]byte(key))
		for _, p := range pairs {
			out[string(p.Field)] = string(p.Value)
		}
		return err
	})
	return out
}

func TestHashBasics(t *testing.T) {
	s, _, rec := collStore(t)
	k := []byte("h")
	do(t, s, func(tx *kv.Tx) error {
		n, err := tx.HSet(k, bs("a", "1", "b", "2", "a", "3"))
		if n != 2 || err != nil {
			t.Errorf("HSET = %d %v", n, err)
		}
		if ok, _ := tx.HSetNX(k, []byte("a"), []byte("x")); ok {
			t.Error("HSETNX overwrote")
		}
		if ok, _ := tx.HSetNX(k, []byte("c"), []byte("x")); !ok {
			t.Error("HSETNX did not set")
		}
		vals, _ := tx.HMGet(k, bs("a", "zz", "c"))
		if vals[1] != nil || string(vals[0]) != "3" || string(vals[2]) != "x" {
			t.Errorf("HMGET = %q", vals)
		}
		if n, _ := tx.HLen(k); n != 3 {
			t.Errorf("HLEN = %d", n)
		}
		if n, _ := tx.HStrLen(k, []byte("c")); n != 1 {
			t.Errorf("HSTRLEN = %d", n)
		}
		if v, err := tx.HIncrBy(k, []byte("a"), 10); v != 13 || err != nil {
			t.Errorf("HINCRBY = %d %v", v, err)
		}
		if _, err := tx.HIncrBy(k, []byte("c"), 1); !errors.Is(err, kv.ErrHashNotInteger) {
			t.Errorf("HINCRBY on text: %v", err)
		}
		if v, err := tx.HIncrByFloat(k, []byte("f"), []byte("0.1")); string(v) != "0.1" || err != nil {
			t.Errorf("HINCRBYFLOAT = %s %v", v, err)
		}
		if v, _ := tx.HIncrByFloat(k, []byte("f"), []byte("0.2")); string(v) != "0.3" {
			t.Errorf("HINCRBYFLOAT = %s", v)
		}
		if _, err := tx.HIncrByFloat(k, []byte("c"), []byte("1")); !errors.Is(err, kv.ErrHashNotFloat) {
			t.Errorf("HINCRBYFLOAT on text: %v", err)
		}
		if _, err := tx.HIncrByFloat(k, []byte("f"), []byte("inf")); !errors.Is(err, kv.ErrIncrNaNOrInf) {
			t.Errorf("HINCRBYFLOAT inf: %v", err)
		}
		if _, err := tx.HIncrByFloat(k, []byte("f"), []byte("x")); !errors.Is(err, kv.ErrNotFloat) {
			t.Errorf("HINCRBYFLOAT x: %v", err)
		}
		if _, err := tx.HIncrBy(k, []byte("a"), 1<<63-1); !errors.Is(err, kv.ErrOverflow) {
			t.Errorf("HINCRBY overflow: %v", err)
		}
		return nil
	})
	if got := hgetall(t, s, "h"); !maps.Equal(got, map[string]string{"a": "13", "b": "2", "c": "x", "f": "0.3"}) {
		t.Fatalf("HGETALL %v", got)
	}
	rec.names()
	do(t, s, func(tx *kv.Tx) error {
		n, err := tx.HDel(k, bs("a", "zz", "b", "c", "f"))
		if n != 4 || err != nil {
			t.Errorf("HDEL = %d %v", n, err)
		}
		return err
	})
	if got := rec.names(); !slices.Equal(got, []string{"hdel:h", "del:h"}) {
		t.Fatalf("events %v", got)
	}
	do(t, s, func(tx *kv.Tx) error {
		if _, err := tx.Set([]byte("s"), []byte("v"), kv.SetOptions{}); err != nil {
			return err
		}
		if _, err := tx.HSet([]byte("s"), bs("a", "1")); !errors.Is(err, kv.ErrWrongType) {
			t.Errorf("HSET on a string: %v", err)
		}
		if _, _, err := tx.HGet([]byte("s"), []byte("a")); !errors.Is(err, kv.ErrWrongType) {
			t.Errorf("HGET on a string: %v", err)
		}
		return nil
	})
}

func TestHashRandomAndScan(t *testing.T) {
	s, _, _ := collStore(t)
	k := []byte("h")
	want := map[string]string{}
	do(t, s, func(tx *kv.Tx) error {
		var pairs [][]byte
		for i := range 2000 {
			f, v := "field:"+strconv.Itoa(i), strconv.Itoa(i)
			want[f] = v
			pairs = append(pairs, []byte(f), []byte(v))
		}
		_, err := tx.HSet(k, pairs)
		return err
	})
	do(t, s, func(tx *kv.Tx) error {
		for _, n := range []int64{1, 5, 700, 3000, -7} {
			out, ok, err := tx.HRandField(k, n)
			if err != nil || !ok {
				return err
			}
			wantLen := n
			if n < 0 {
				wantLen = -n
			}
			wantLen = min(wantLen, 2000)
			if int64(len(out)) != wantLen {
				t.Errorf("HRANDFIELD %d gave %d", n, len(out))
			}
			seen := map[string]bool{}
			for _, p := range out {
				if want[string(p.Field)] != string(p.Value) {
					t.Errorf("HRANDFIELD pair %q=%q", p.Field, p.Value)
				}
				if n > 0 && seen[string(p.Field)] {
					t.Errorf("HRANDFIELD %d repeated %q", n, p.Field)
				}
				seen[string(p.Field)] = true
			}
		}
		// Random seeks spread over the hash despite the shared prefix.
		seen := map[string]bool{}
		for range 50 {
			out, _, _ := tx.HRandField(k, -1)
			seen[string(out[0].Field)] = true
		}
		if len(seen) < 10 {
			t.Errorf("50 picks gave only %d distinct fields", len(seen))
		}
		return nil
	})
	got := map[string]string{}
	var cursor uint64
	for {
		var page []kv.HashPair
		do(t, s, func(tx *kv.Tx) (err error) {
			cursor, page, err = tx.HScan(k, cursor, kv.CollScanOptions{Count: 300})
			return
		})
		for _, p := range page {
			got[string(p.Field)] = string(p.Value)
		}
		if cursor == 0 {
			break
		}
	}
	if !maps.Equal(got, want) {
		t.Fatalf("HSCAN saw %d of %d fields", len(got), len(want))
	}
}

// TestHashModel runs random hash commands against a map.
func TestHashModel(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		s, _, _ := newStoreT(rt)
		k := []byte("h")
		model := map[string]string{}
		field := rapid.SampledFrom([]string{"a", "b", "c", "d", "e"})
		for range 50 {
			tx := s.Begin()
			switch rapid.IntRange(0, 4).Draw(rt, "op") {
			case 0:
				f, v := field.Draw(rt, "f"), rapid.StringMatching(`[a-z]{0,3}`).Draw(rt, "v")
				n, _ := tx.HSet(k, bs(f, v))
				_, had := model[f]
				if (n == 1) == had {
					rt.Fatalf("HSET %s returned %d, had=%v", f, n, had)
				}
				model[f] = v
			case 1:
				f := field.Draw(rt, "f")
				n, _ := tx.HDel(k, bs(f))
				_, had := model[f]
				if (n == 1) != had {
					rt.Fatalf("HDEL %s returned %d, had=%v", f, n, had)
				}
				delete(model, f)
			case 2:
				f := field.Draw(rt, "f")
				d := rapid.Int64Range(-5, 5).Draw(rt, "d")
				v, err := tx.HIncrBy(k, []byte(f), d)
				cur, had := model[f]
				old, isInt := kv.ParseInt([]byte(cur))
				if had && !isInt {
					if !errors.Is(err, kv.ErrHashNotInteger) {
						rt.Fatalf("HINCRBY on %q: %v", cur, err)
					}
					break
				}
				if v != old+d {
					rt.Fatalf("HINCRBY = %d, want %d", v, old+d)
				}
				model[f] = strconv.FormatInt(old+d, 10)
			case 3:
				f := field.Draw(rt, "f")
				ok, _ := tx.HSetNX(k, []byte(f), []byte("nx"))
				if _, had := model[f]; had == ok {
					rt.Fatalf("HSETNX %s = %v with had=%v", f, ok, had)
				} else if !had {
					model[f] = "nx"
				}
			case 4:
				f := field.Draw(rt, "f")
				v, ok, _ := tx.HGet(k, []byte(f))
				if want, had := model[f]; had != ok || want != string(v) {
					rt.Fatalf("HGET %s = %q %v, want %q %v", f, v, ok, want, had)
				}
			}
			if err := tx.Commit(); err != nil {
				rt.Fatal(err)
			}
			tx = s.Begin()
			n, _ := tx.HLen(k)
			pairs, _ := tx.HGetAll(k)
			typ, _ := tx.Type(k)
			tx.Rollback()
			got := map[string]string{}
			for _, p := range pairs {
				got[string(p.Field)] = string(p.Value)
			}
			if !maps.Equal(got, model) || n != int64(len(model)) {
				rt.Fatalf("hash %v (len %d), model %v", got, n, model)
			}
			if (typ == kv.TypeHash) != (len(model) > 0) {
				rt.Fatalf("type %v with %d fields", typ, len(model))
			}
		}
	})
}
