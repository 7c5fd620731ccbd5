package storage

import (
	"bytes"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"slices"
	"testing"
)

// A batch on a snapshot reads its own writes over the snapshot, never the
// writes committed after it, in both directions, as a model map does.
func TestSnapshotBatchMatchesModel(t *testing.T) {
	s, err := Open(Options{InMemory: true, Dir: "mem", Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	rng := rand.New(rand.NewPCG(1, 2))
	key := func() []byte { return []byte{PrefixDocument, byte(rng.IntN(40))} }
	for round := range 50 {
		model := map[string]string{}
		b0 := s.NewBatch()
		b0.DeleteRange([]byte{PrefixDocument}, []byte{PrefixDocument + 1})
		for range 20 {
			k, v := key(), fmt.Sprint(rng.Int())
			b0.Set(k, []byte(v))
			model[string(k)] = v
		}
		if err := b0.Commit(); err != nil {
			t.Fatal(err)
		}
		b0.Close()
		snap := s.NewSnapshot()
		ob := s.NewSnapshotBatch(snap)
		// Writes committed after the snapshot are not seen.
		later := s.NewBatch()
		for range 10 {
			later.Set(key(), []byte("later"))
		}
		later.Commit()
		later.Close()
		for range 30 {
			k := key()
			if rng.IntN(3) == 0 {
				ob.Delete(k)
				delete(model, string(k))
			} else {
				v := fmt.Sprint(rng.Int())
				ob.Set(k, []byte(v))
				model[string(k)] = v
			}
		}
		keys := make([]string, 0, len(model))
		for k := range model {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for i := range 40 {
			k := []byte{PrefixDocument, byte(i)}
			v, err := ob.Get(k)
			want, ok := model[string(k)]
			if ok != (err == nil) || ok && string(v) != want {
				t.Fatalf("round %d: Get(%x) = %q %v, want %q %v", round, k, v, err, want, ok)
			}
		}
		it, err := ob.NewIter([]byte{PrefixDocument}, []byte{PrefixDocument + 1})
		if err != nil {
			t.Fatal(err)
		}
		var fwd, bwd []string
		for ok := it.First(); ok; ok = it.Next() {
			if model[string(it.Key())] != string(it.Value()) {
				t.Fatalf("round %d: value of %x = %q", round, it.Key(), it.Value())
			}
			fwd = append(fwd, string(it.Key()))
		}
		for ok := it.Last(); ok; ok = it.Prev() {
			bwd = append(bwd, string(it.Key()))
		}
		slices.Reverse(bwd)
		if !slices.Equal(fwd, keys) || !slices.Equal(bwd, keys) {
			t.Fatalf("round %d: forward %q backward %q, want %q", round, fwd, bwd, keys)
		}
		// Seeks and changes of direction.
		for range 20 {
			at := []byte{PrefixDocument, byte(rng.IntN(42))}
			i := firstAtOrAfter(keys, at)
			ok := it.SeekGE(at)
			if ok != (i < len(keys)) || ok && string(it.Key()) != keys[i] {
				t.Fatalf("round %d: SeekGE(%x) on %x", round, at, it.Key())
			}
			if ok && it.Prev() != (i > 0) || i > 0 && ok && string(it.Key()) != keys[i-1] {
				t.Fatalf("round %d: Prev after SeekGE(%x)", round, at)
			}
			ok = it.SeekLT(at)
			if ok != (i > 0) || ok && string(it.Key()) != keys[i-1] {
				t.Fatalf("round %d: SeekLT(%x)", round, at)
			}
			if ok && it.Next() != (i < len(keys)) || ok && i < len(keys) && string(it.Key()) != keys[i] {
				t.Fatalf("round %d: Next after SeekLT(%x)", round, at)
			}
		}
		it.Close()
		if err := ob.Commit(); err != nil {
			t.Fatal(err)
		}
		ob.Close()
		snap.Close()
	}
}

// firstAtOrAfter returns the index of the first key >= at.
func firstAtOrAfter(keys []string, at []byte) int {
	i, _ := slices.BinarySearchFunc(keys, at, func(k string, at []byte) int { return bytes.Compare([]byte(k), at) })
	return i
}
