package kv_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/mayfly/mayfly/internal/kv"
)

func TestSort(t *testing.T) {
	s, c, rec := collStore(t)
	do(t, s, func(tx *kv.Tx) error {
		if _, err := tx.Push([]byte("l"), kv.ListRight, false, bs("3", "1", "10", "2")); err != nil {
			return err
		}
		if _, err := tx.Push([]byte("words"), kv.ListRight, false, bs("b", "a", "c")); err != nil {
			return err
		}
		if _, err := tx.SAdd([]byte("set"), bs("z", "x", "y")); err != nil {
			return err
		}
		for k, v := range map[string]string{"w_1": "40", "w_2": "30", "w_3": "20", "w_10": "10", "o_1": "one", "o_3": "three"} {
			if _, err := tx.Set([]byte(k), []byte(v), kv.SetOptions{}); err != nil {
				return err
			}
		}
		if _, err := tx.HSet([]byte("h_2"), bs("name", "two")); err != nil {
			return err
		}
		return nil
	})
	cases := []struct {
		name string
		key  string
		o    kv.SortOptions
		want []string // "<nil>" for a missing GET
	}{
		{"numeric", "l", kv.SortOptions{Count: -1}, []string{"1", "2", "3", "10"}},
		{"desc limit", "l", kv.SortOptions{Desc: true, Offset: 1, Count: 2}, []string{"3", "2"}},
		{"alpha", "l", kv.SortOptions{Alpha: true, Count: -1}, []string{"1", "10", "2", "3"}},
		{"by weights", "l", kv.SortOptions{By: []byte("w_*"), Count: -1}, []string{"10", "3", "2", "1"}},
		{"nosort keeps order", "l", kv.SortOptions{By: []byte("nosort"), Count: -1}, []string{"3", "1", "10", "2"}},
		{"nosort desc", "l", kv.SortOptions{By: []byte("nosort"), Desc: true, Count: 2}, []string{"2", "10"}},
		{"get", "l", kv.SortOptions{Count: 3, Gets: bs("#", "o_*", "h_*->name")},
			[]string{"1", "one", "<nil>", "2", "<nil>", "two", "3", "three", "<nil>"}},
		{"limit past the end", "l", kv.SortOptions{Offset: 10, Count: 5}, []string{}},
		{"missing key", "nokey", kv.SortOptions{Count: -1}, []string{}},
		{"set alpha", "set", kv.SortOptions{Alpha: true, Count: -1}, []string{"x", "y", "z"}},
	}
	for _, cs := range cases {
		do(t, s, func(tx *kv.Tx) error {
			out, err := tx.Sort([]byte(cs.key), cs.o)
			got := make([]string, len(out))
			for i, v := range out {
				got[i] = string(v)
				if v == nil {
					got[i] = "<nil>"
				}
			}
			if err != nil || !slices.Equal(got, cs.want) {
				t.Errorf("%s: %q %v, want %q", cs.name, got, err, cs.want)
			}
			return err
		})
	}
	do(t, s, func(tx *kv.Tx) error {
		if _, err := tx.Sort([]byte("words"), kv.SortOptions{Count: -1}); !errors.Is(err, kv.ErrSortNotDouble) {
			t.Errorf("numeric sort of words: %v", err)
		}
		if _, err := tx.Sort([]byte("w_1"), kv.SortOptions{Count: -1}); !errors.Is(err, kv.ErrWrongType) {
			t.Errorf("sort of a string: %v", err)
		}
		return nil
	})
	// STORE replaces the destination with a list and clears its TTL; a set
	// sorted BY a constant is still sorted (alphabetically) when stored.
	now := c.Now().UnixMilli()
	rec.names()
	do(t, s, func(tx *kv.Tx) error {
		if _, err := tx.Expire([]byte("w_1"), now+10_000, kv.ExpireAlways); err != nil {
			return err
		}
		n, err := tx.SortStore([]byte("set"), kv.SortOptions{By: []byte("nosort"), Count: -1}, []byte("w_1"))
		if n != 3 || err != nil {
			t.Errorf("SORT STORE = %d %v", n, err)
		}
		_, st, _ := tx.ExpireAt([]byte("w_1"))
		if st != kv.TTLPersistent {
			t.Error("SORT STORE kept the TTL")
		}
		n, _ = tx.SortStore([]byte("nokey"), kv.SortOptions{Count: -1}, []byte("l"))
		if n != 0 {
			t.Errorf("empty SORT STORE = %d", n)
		}
		return nil
	})
	if got := lrange(t, s, "w_1"); !slices.Equal(got, []string{"x", "y", "z"}) {
		t.Fatalf("stored %v", got)
	}
	if got := rec.names(); !slices.Equal(got, []string{"expire:w_1", "sortstore:w_1", "del:l"}) {
		t.Fatalf("events %v", got)
	}
}
