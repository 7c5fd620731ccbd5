package kv_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/mayfly/mayfly/internal/kv"
)

// TestZPopFirst checks the step of ZMPOP and the blocking pops: missing
// keys are skipped, a key of another type before a sorted set is an
// error, and the events are those of ZPOPMIN/ZPOPMAX.
func TestZPopFirst(t *testing.T) {
	s, _, rec := collStore(t)
	zadd(t, s, "z", 1.0, "a", 2.0, "b", 3.0, "c")
	do(t, s, func(tx *kv.Tx) error {
		_, err := tx.Set([]byte("str"), []byte("v"), kv.SetOptions{})
		return err
	})
	rec.names()
	do(t, s, func(tx *kv.Tx) error {
		if _, _, ok, err := tx.ZPopFirst(bs("none", "other"), false, 1); ok || err != nil {
			t.Errorf("ZPopFirst on missing keys: %v %v", ok, err)
		}
		if _, _, _, err := tx.ZPopFirst(bs("none", "str", "z"), false, 1); !errors.Is(err, kv.ErrWrongType) {
			t.Errorf("ZPopFirst over a string: %v", err)
		}
		k, els, ok, err := tx.ZPopFirst(bs("none", "z", "str"), true, 2)
		if string(k) != "z" || !ok || err != nil || !slices.Equal(zmembers(els), []string{"c", "b"}) || els[0].Score != 3 {
			t.Errorf("ZPopFirst max 2 = %q %v %v %v", k, els, ok, err)
		}
		k, els, ok, err = tx.ZPopFirst(bs("z"), false, 10)
		if string(k) != "z" || !ok || err != nil || !slices.Equal(zmembers(els), []string{"a"}) {
			t.Errorf("ZPopFirst min 10 = %q %v %v %v", k, els, ok, err)
		}
		return nil
	})
	want := []string{"zpopmax:z", "zpopmin:z", "del:z"}
	if got := rec.names(); !slices.Equal(got, want) {
		t.Fatalf("events %v, want %v", got, want)
	}
}

func TestZLexCountAndRemRangeByLex(t *testing.T) {
	s, _, rec := collStore(t)
	zadd(t, s, "z", 0.0, "a", 0.0, "b", 0.0, "c", 0.0, "d")
	rec.names()
	lex := func(s string) kv.LexBound {
		b, ok := kv.ParseLexBound([]byte(s))
		if !ok {
			t.Fatalf("ParseLexBound(%q)", s)
		}
		return b
	}
	cases := []struct {
		min, max string
		want     int64
	}{
		{"-", "+", 4}, {"(a", "[c", 2}, {"[b", "[b", 1}, {"(b", "[b", 0}, {"+", "-", 0}, {"[c", "[a", 0}, {"[e", "+", 0},
	}
	do(t, s, func(tx *kv.Tx) error {
		for _, c := range cases {
			if n, err := tx.ZLexCount([]byte("z"), lex(c.min), lex(c.max)); n != c.want || err != nil {
				t.Errorf("ZLexCount %s %s = %d %v, want %d", c.min, c.max, n, err, c.want)
			}
		}
		if n, err := tx.ZLexCount([]byte("none"), lex("-"), lex("+")); n != 0 || err != nil {
			t.Errorf("ZLexCount on a missing key = %d %v", n, err)
		}
		n, err := tx.ZRemRange([]byte("z"), kv.ZRangeSpec{Kind: kv.ZByLex, LexMin: lex("[b"), LexMax: lex("(d")})
		if n != 2 || err != nil {
			t.Errorf("ZRemRange by lex = %d %v", n, err)
		}
		n, err = tx.ZRemRange([]byte("z"), kv.ZRangeSpec{Kind: kv.ZByLex, LexMin: lex("-"), LexMax: lex("+")})
		if n != 2 || err != nil {
			t.Errorf("ZRemRange by lex, all = %d %v", n, err)
		}
		return nil
	})
	want := []string{"zremrangebylex:z", "zremrangebylex:z", "del:z"}
	if got := rec.names(); !slices.Equal(got, want) {
		t.Fatalf("events %v, want %v", got, want)
	}
}

func TestZInterCard(t *testing.T) {
	s, _, _ := collStore(t)
	zadd(t, s, "z1", 1.0, "a", 2.0, "b", 3.0, "c", 4.0, "d")
	zadd(t, s, "z2", 5.0, "b", 6.0, "c", 7.0, "d", 8.0, "e")
	do(t, s, func(tx *kv.Tx) error {
		if _, err := tx.SAdd([]byte("set"), bs("c", "d", "x")); err != nil {
			return err
		}
		_, err := tx.Set([]byte("str"), []byte("v"), kv.SetOptions{})
		return err
	})
	cases := []struct {
		keys  []string
		limit int64
		want  int64
		err   error
	}{
		{[]string{"z1"}, 0, 4, nil},
		{[]string{"z1", "z2"}, 0, 3, nil},
		{[]string{"z1", "z2", "set"}, 0, 2, nil},
		{[]string{"z1", "z2"}, 2, 2, nil},
		{[]string{"z1", "z2"}, 10, 3, nil},
		{[]string{"z1", "none"}, 0, 0, nil},
		// Every key is type-checked, even after a missing one.
		{[]string{"none", "str"}, 0, 0, kv.ErrWrongType},
		{[]string{"z1", "str"}, 0, 0, kv.ErrWrongType},
	}
	for _, c := range cases {
		do(t, s, func(tx *kv.Tx) error {
			n, err := tx.ZInterCard(bs(c.keys...), c.limit)
			if n != c.want || !errors.Is(err, c.err) {
				t.Errorf("ZInterCard %v limit %d = %d %v, want %d %v", c.keys, c.limit, n, err, c.want, c.err)
			}
			return nil
		})
	}
}
