package kv_test

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/mayfly/mayfly/internal/kv"
)

func TestZRandMember(t *testing.T) {
	s, _, _ := collStore(t)
	zadd(t, s, "z", 3.0, "a", 1.0, "b", 2.0, "c")
	// More members than smallSample, so the seek-based picking runs too.
	var big []any
	for i := range 2000 {
		big = append(big, float64(i), fmt.Sprintf("m%04d", i))
	}
	zadd(t, s, "big", big...)
	do(t, s, func(tx *kv.Tx) error {
		_, err := tx.Set([]byte("str"), []byte("v"), kv.SetOptions{})
		return err
	})
	do(t, s, func(tx *kv.Tx) error {
		if els, ok, err := tx.ZRandMember([]byte("none"), 3); ok || err != nil || len(els) != 0 {
			t.Errorf("missing key: %v %v %v", els, ok, err)
		}
		if _, _, err := tx.ZRandMember([]byte("str"), 1); !errors.Is(err, kv.ErrWrongType) {
			t.Errorf("string: %v", err)
		}
		// A count reaching the size gives the whole set, highest first.
		for _, n := range []int64{3, 10} {
			els, ok, err := tx.ZRandMember([]byte("z"), n)
			if !ok || err != nil || !slices.Equal(zmembers(els), []string{"a", "c", "b"}) || els[0].Score != 3 {
				t.Errorf("ZRandMember %d = %v %v %v", n, els, ok, err)
			}
		}
		if els, _, _ := tx.ZRandMember([]byte("z"), 0); len(els) != 0 {
			t.Errorf("ZRandMember 0 = %v", els)
		}
		return nil
	})
	scores := map[string]float64{"a": 3, "b": 1, "c": 2}
	for i := range 2000 {
		scores[fmt.Sprintf("m%04d", i)] = float64(i)
	}
	for _, c := range []struct {
		key string
		n   int64
	}{{"z", 2}, {"z", -7}, {"big", 50}, {"big", 1500}, {"big", -30}} {
		do(t, s, func(tx *kv.Tx) error {
			els, ok, err := tx.ZRandMember([]byte(c.key), c.n)
			want := c.n
			if want < 0 {
				want = -want
			}
			if !ok || err != nil || int64(len(els)) != want {
				t.Fatalf("ZRandMember %s %d: %d elements, %v %v", c.key, c.n, len(els), ok, err)
			}
			seen := map[string]bool{}
			for _, e := range els {
				sc, known := scores[string(e.Member)]
				if !known || sc != e.Score {
					t.Errorf("ZRandMember %s %d gave %q %v", c.key, c.n, e.Member, e.Score)
				}
				if c.n > 0 && seen[string(e.Member)] {
					t.Errorf("ZRandMember %s %d repeated %q", c.key, c.n, e.Member)
				}
				seen[string(e.Member)] = true
			}
			return nil
		})
	}
}
