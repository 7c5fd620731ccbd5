package kv_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/mayfly/mayfly/internal/kv"
)

// TestListMPop checks the step of LMPOP and BLMPOP.
func TestListMPop(t *testing.T) {
	s, _, rec := collStore(t)
	do(t, s, func(tx *kv.Tx) error {
		if _, err := tx.Push([]byte("l"), kv.ListRight, false, bs("1", "2", "3", "4")); err != nil {
			return err
		}
		_, err := tx.Set([]byte("str"), []byte("v"), kv.SetOptions{})
		return err
	})
	rec.names()
	do(t, s, func(tx *kv.Tx) error {
		if _, _, ok, err := tx.MPop(bs("a", "b"), kv.ListLeft, 1); ok || err != nil {
			t.Errorf("MPop on missing keys: %v %v", ok, err)
		}
		if _, _, _, err := tx.MPop(bs("a", "str", "l"), kv.ListLeft, 1); !errors.Is(err, kv.ErrWrongType) {
			t.Errorf("MPop over a string: %v", err)
		}
		k, vals, ok, err := tx.MPop(bs("a", "l", "str"), kv.ListRight, 3)
		if string(k) != "l" || !ok || err != nil || !slices.Equal(strs(vals), []string{"4", "3", "2"}) {
			t.Errorf("MPop right 3 = %q %q %v %v", k, strs(vals), ok, err)
		}
		k, vals, ok, err = tx.MPop(bs("l"), kv.ListLeft, 5)
		if string(k) != "l" || !ok || err != nil || !slices.Equal(strs(vals), []string{"1"}) {
			t.Errorf("MPop left 5 = %q %q %v %v", k, strs(vals), ok, err)
		}
		return nil
	})
	want := []string{"rpop:l", "lpop:l", "del:l"}
	if got := rec.names(); !slices.Equal(got, want) {
		t.Fatalf("events %v, want %v", got, want)
	}
}
