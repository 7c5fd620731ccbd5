package kv_test

import (
	"bytes"
	"cmp"
	"errors"
	"math"
	"slices"
	"testing"

	"github.com/mayfly/mayfly/internal/kv"
	"pgregory.net/rapid"
)

func zmembers(els []kv.ZMember) []string {
	out := make([]string, len(els))
	for i, e := range els {
		out[i] = string(e.Member)
	}
	return out
}

func zadd(t *testing.T, s *kv.Store, key string, pairs ...any) {
	t.Helper()
	do(t, s, func(tx *kv.Tx) error {
		var scores []float64
		var members [][]byte
		for i := 0; i < len(pairs); i += 2 {
			scores = append(scores, pairs[i].(float64))
			members = append(members, []byte(pairs[i+1].(string)))
		}
		_, err := tx.ZAdd([]byte(key), kv.ZAddOptions{}, scores, members)
		return err
	})
}

func TestParseScores(t *testing.T) {
	for s, ok := range map[string]bool{
		"1": true, "-1.5": true, "inf": true, "-inf": true, "+inf": true, "1e3": true, "0": true,
		"nan": false, "": false, " 1": false, "1 ": false, "abc": false, "1e400": false, "1e-400": false, "1_0": false,
	} {
		if _, got := kv.ParseScore([]byte(s)); got != ok {
			t.Errorf("ParseScore(%q) ok=%v", s, got)
		}
	}
	for s, want := range map[string]kv.ScoreBound{
		"(1": {Value: 1, Excl: true}, "-inf": {Value: math.Inf(-1)}, "(": {Excl: true}, " 2": {Value: 2},
	} {
		if got, ok := kv.ParseScoreBound([]byte(s)); !ok || got != want {
			t.Errorf("ParseScoreBound(%q) = %+v %v", s, got, ok)
		}
	}
	for _, s := range []string{"x", "(x", "nan", "1 "} {
		if _, ok := kv.ParseScoreBound([]byte(s)); ok {
			t.Errorf("ParseScoreBound(%q) accepted", s)
		}
	}
	for _, s := range []string{"a", "", "-a"} {
		if _, ok := kv.ParseLexBound([]byte(s)); ok {
			t.Errorf("ParseLexBound(%q) accepted", s)
		}
	}
}

func TestZAddFlags(t *testing.T) {
	s, _, rec := collStore(t)
	k := []byte("z")
	do(t, s, func(tx *kv.Tx) error {
		r, _ := tx.ZAdd(k, kv.ZAddOptions{XX: true}, []float64{1}, bs("a"))
		if r.Added != 0 {
			t.Errorf("ZADD XX on a missing key added")
		}
		r, _ = tx.ZAdd(k, kv.ZAddOptions{}, []float64{1, 2, 3}, bs("a", "b", "c"))
		if r.Added != 3 {
			t.Errorf("ZADD = %+v", r)
		}
		r, _ = tx.ZAdd(k, kv.ZAddOptions{NX: true}, []float64{9, 4}, bs("a", "d"))
		if r.Added != 1 || r.Updated != 0 {
			t.Errorf("ZADD NX = %+v", r)
		}
		r, _ = tx.ZAdd(k, kv.ZAddOptions{GT: true}, []float64{0, 5}, bs("a", "b"))
		if r.Updated != 1 {
			t.Errorf("ZADD GT = %+v", r)
		}
		r, _ = tx.ZAdd(k, kv.ZAddOptions{LT: true, XX: true}, []float64{0, 0}, bs("a", "zz"))
		if r.Updated != 1 || r.Added != 0 {
			t.Errorf("ZADD LT XX = %+v", r)
		}
		r, _ = tx.ZAdd(k, kv.ZAddOptions{Incr: true}, []float64{2.5}, bs("a"))
		if !r.ScoreOK || r.Score != 2.5 {
			t.Errorf("ZADD INCR = %+v", r)
		}
		r, _ = tx.ZAdd(k, kv.ZAddOptions{Incr: true, GT: true}, []float64{-1}, bs("a"))
		if r.ScoreOK {
			t.Errorf("ZADD INCR GT lower = %+v", r)
		}
		if _, err := tx.ZAdd(k, kv.ZAddOptions{}, []float64{math.Inf(1)}, bs("inf")); err != nil {
			return err
		}
		if _, err := tx.ZAdd(k, kv.ZAddOptions{Incr: true}, []float64{math.Inf(-1)}, bs("inf")); !errors.Is(err, kv.ErrNaNScore) {
			t.Errorf("inf + -inf: %v", err)
		}
		sc, ok, _ := tx.ZScore(k, []byte("b"))
		if !ok || sc != 5 {
			t.Errorf("ZSCORE b = %v %v", sc, ok)
		}
		return nil
	})
	got := rec.names()
	want := []string{"zadd:z", "zadd:z", "zadd:z", "zadd:z", "zincr:z", "zadd:z"}
	if !slices.Equal(got, want) {
		t.Fatalf("events %v, want %v", got, want)
	}
}

func TestZRanges(t *testing.T) {
	s, _, _ := collStore(t)
	zadd(t, s, "z", -1.0, "neg", 1.0, "a", 1.0, "b", 2.0, "c", 3.0, "d", math.Inf(1), "inf")
	zadd(t, s, "lex", 0.0, "a", 0.0, "b", 0.0, "c", 0.0, "d", 0.0, "e")
	sb := func(s string) kv.ScoreBound { b, _ := kv.ParseScoreBound([]byte(s)); return b }
	lb := func(s string) kv.LexBound { b, _ := kv.ParseLexBound([]byte(s)); return b }
	cases := []struct {
		name string
		key  string
		q    kv.ZRangeSpec
		want []string
	}{
		{"rank all", "z", kv.ZRangeSpec{Start: 0, Stop: -1}, []string{"neg", "a", "b", "c", "d", "inf"}},
		{"rank middle", "z", kv.ZRangeSpec{Start: 1, Stop: 2}, []string{"a", "b"}},
		{"rank rev", "z", kv.ZRangeSpec{Start: 0, Stop: 1, Rev: true}, []string{"inf", "d"}},
		{"rank rev tail", "z", kv.ZRangeSpec{Start: -2, Stop: -1, Rev: true}, []string{"a", "neg"}},
		{"rank empty", "z", kv.ZRangeSpec{Start: 5, Stop: 2}, []string{}},
		{"score", "z", kv.ZRangeSpec{Kind: kv.ZByScore, Min: sb("1"), Max: sb("(3"), Count: -1}, []string{"a", "b", "c"}},
		{"score excl", "z", kv.ZRangeSpec{Kind: kv.ZByScore, Min: sb("(1"), Max: sb("+inf"), Count: -1}, []string{"c", "d", "inf"}},
		{"score rev", "z", kv.ZRangeSpec{Kind: kv.ZByScore, Rev: true, Min: sb("-inf"), Max: sb("2"), Count: -1}, []string{"c", "b", "a", "neg"}},
		{"score rev excl", "z", kv.ZRangeSpec{Kind: kv.ZByScore, Rev: true, Min: sb("(1"), Max: sb("(3"), Count: -1}, []string{"c"}},
		{"score limit", "z", kv.ZRangeSpec{Kind: kv.ZByScore, Min: sb("-inf"), Max: sb("inf"), Offset: 2, Count: 2}, []string{"b", "c"}},
		{"score neg offset", "z", kv.ZRangeSpec{Kind: kv.ZByScore, Min: sb("-inf"), Max: sb("inf"), Offset: -1, Count: 2}, []string{}},
		{"score min>max", "z", kv.ZRangeSpec{Kind: kv.ZByScore, Min: sb("3"), Max: sb("1"), Count: -1}, []string{}},
		{"lex", "lex", kv.ZRangeSpec{Kind: kv.ZByLex, LexMin: lb("[b"), LexMax: lb("(d"), Count: -1}, []string{"b", "c"}},
		{"lex all", "lex", kv.ZRangeSpec{Kind: kv.ZByLex, LexMin: lb("-"), LexMax: lb("+"), Offset: 1, Count: 2}, []string{"b", "c"}},
		{"lex rev", "lex", kv.ZRangeSpec{Kind: kv.ZByLex, Rev: true, LexMin: lb("(a"), LexMax: lb("[c"), Count: -1}, []string{"c", "b"}},
	}
	for _, c := range cases {
		do(t, s, func(tx *kv.Tx) error {
			got, err := tx.ZRange([]byte(c.key), c.q)
			if err != nil || !slices.Equal(zmembers(got), c.want) {
				t.Errorf("%s: %v %v, want %v", c.name, zmembers(got), err, c.want)
			}
			return err
		})
	}
	do(t, s, func(tx *kv.Tx) error {
		for m, want := range map[string]int64{"neg": 0, "b": 2, "inf": 5} {
			r, _, ok, err := tx.ZRank([]byte("z"), []byte(m), false)
			if !ok || r != want || err != nil {
				t.Errorf("ZRANK %s = %d %v %v", m, r, ok, err)
			}
			r, _, _, _ = tx.ZRank([]byte("z"), []byte(m), true)
			if r != 5-want {
				t.Errorf("ZREVRANK %s = %d", m, r)
			}
		}
		if n, _ := tx.ZCount([]byte("z"), sb("(1"), sb("3")); n != 2 {
			t.Errorf("ZCOUNT = %d", n)
		}
		return nil
	})
}

func TestZPopRemRangeAndStore(t *testing.T) {
	s, _, rec := collStore(t)
	zadd(t, s, "z", 1.0, "a", 2.0, "b", 3.0, "c", 4.0, "d", 5.0, "e")
	rec.names()
	do(t, s, func(tx *kv.Tx) error {
		out, _ := tx.ZPop([]byte("z"), false, 2)
		if !slices.Equal(zmembers(out), []string{"a", "b"}) {
			t.Errorf("ZPOPMIN 2 = %v", zmembers(out))
		}
		out, _ = tx.ZPop([]byte("z"), true, 1)
		if !slices.Equal(zmembers(out), []string{"e"}) || out[0].Score != 5 {
			t.Errorf("ZPOPMAX = %v", out)
		}
		n, _ := tx.ZRemRange([]byte("z"), kv.ZRangeSpec{Kind: kv.ZByRank, Start: 0, Stop: 0})
		if n != 1 {
			t.Errorf("ZREMRANGEBYRANK = %d", n)
		}
		n, _ = tx.ZRemRange([]byte("z"), kv.ZRangeSpec{Kind: kv.ZByScore, Min: kv.ScoreBound{Value: 0}, Max: kv.ScoreBound{Value: 10}})
		if n != 1 {
			t.Errorf("ZREMRANGEBYSCORE = %d", n)
		}
		return nil
	})
	want := []string{"zpopmin:z", "zpopmax:z", "zremrangebyrank:z", "zremrangebyscore:z", "del:z"}
	if got := rec.names(); !slices.Equal(got, want) {
		t.Fatalf("events %v, want %v", got, want)
	}
	zadd(t, s, "z1", 1.0, "a", 2.0, "b", 3.0, "c")
	zadd(t, s, "z2", 10.0, "b", 20.0, "c", 30.0, "d")
	do(t, s, func(tx *kv.Tx) error {
		_, err := tx.SAdd([]byte("set"), bs("c", "x"))
		return err
	})
	do(t, s, func(tx *kv.Tx) error {
		got, _ := tx.ZSetOp(kv.SetUnion, bs("z1", "z2", "set"), []float64{1, 2, 3}, kv.AggSum)
		want := []kv.ZMember{{Member: []byte("a"), Score: 1}, {Member: []byte("x"), Score: 3}, {Member: []byte("b"), Score: 22}, {Member: []byte("c"), Score: 46}, {Member: []byte("d"), Score: 60}}
		if !slices.EqualFunc(got, want, func(a, b kv.ZMember) bool { return bytes.Equal(a.Member, b.Member) && a.Score == b.Score }) {
			t.Errorf("ZUNION = %v", got)
		}
		got, _ = tx.ZSetOp(kv.SetInter, bs("z1", "z2"), nil, kv.AggMax)
		if !slices.Equal(zmembers(got), []string{"b", "c"}) || got[1].Score != 20 {
			t.Errorf("ZINTER MAX = %v", got)
		}
		got, _ = tx.ZSetOp(kv.SetDiff, bs("z1", "z2"), nil, kv.AggSum)
		if !slices.Equal(zmembers(got), []string{"a"}) {
			t.Errorf("ZDIFF = %v", got)
		}
		n, err := tx.ZSetOpStore(kv.SetInter, []byte("dst"), bs("z1", "set"), nil, kv.AggMin)
		if n != 1 || err != nil {
			t.Errorf("ZINTERSTORE = %d %v", n, err)
		}
		n, err = tx.ZRangeStore([]byte("dst2"), []byte("z2"), kv.ZRangeSpec{Start: 0, Stop: 1})
		if n != 2 || err != nil {
			t.Errorf("ZRANGESTORE = %d %v", n, err)
		}
		if _, err := tx.Set([]byte("str"), []byte("v"), kv.SetOptions{}); err != nil {
			return err
		}
		if _, err := tx.ZSetOp(kv.SetUnion, bs("z1", "str"), nil, kv.AggSum); !errors.Is(err, kv.ErrWrongType) {
			t.Errorf("ZUNION with a string: %v", err)
		}
		return nil
	})
}

// TestZSetModel runs random sorted set commands against a map and checks
// the order of ZRANGE.
func TestZSetModel(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		s, _, _ := newStoreT(rt)
		k := []byte("z")
		model := map[string]float64{}
		mem := rapid.SampledFrom([]string{"a", "b", "c", "d", "e"})
		score := rapid.SampledFrom([]float64{-2, 0, 1, 1, 2.5, math.Inf(1)})
		for range 40 {
			tx := s.Begin()
			switch rapid.IntRange(0, 3).Draw(rt, "op") {
			case 0:
				m, sc := mem.Draw(rt, "m"), score.Draw(rt, "score")
				tx.ZAdd(k, kv.ZAddOptions{}, []float64{sc}, bs(m))
				model[m] = sc
			case 1:
				m := mem.Draw(rt, "m")
				tx.ZRem(k, bs(m))
				delete(model, m)
			case 2:
				m, sc := mem.Draw(rt, "m"), score.Draw(rt, "score")
				r, err := tx.ZAdd(k, kv.ZAddOptions{Incr: true}, []float64{sc}, bs(m))
				want := model[m] + sc
				if math.IsNaN(want) {
					if !errors.Is(err, kv.ErrNaNScore) {
						rt.Fatalf("NaN increment: %v", err)
					}
					break
				}
				if r.Score != want {
					rt.Fatalf("ZINCRBY = %v, want %v", r.Score, want)
				}
				model[m] = want
			case 3:
				n := rapid.Int64Range(1, 3).Draw(rt, "n")
				out, _ := tx.ZPop(k, false, n)
				for _, e := range out {
					delete(model, string(e.Member))
				}
			}
			if err := tx.Commit(); err != nil {
				rt.Fatal(err)
			}
			var want []kv.ZMember
			for m, sc := range model {
				want = append(want, kv.ZMember{Member: []byte(m), Score: sc})
			}
			slices.SortFunc(want, func(a, b kv.ZMember) int {
				if c := cmp.Compare(a.Score, b.Score); c != 0 {
					return c
				}
				return bytes.Compare(a.Member, b.Member)
			})
			tx = s.Begin()
			got, _ := tx.ZRange(k, kv.ZRangeSpec{Start: 0, Stop: -1})
			n, _ := tx.ZCard(k)
			tx.Rollback()
			if !slices.EqualFunc(got, want, func(a, b kv.ZMember) bool { return bytes.Equal(a.Member, b.Member) && a.Score == b.Score }) || n != int64(len(want)) {
				rt.Fatalf("zset %v (card %d), model %v", got, n, want)
			}
		}
	})
}
