package spill_test

import (
	"cmp"
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"os"
	"slices"
	"testing"

	"github.com/mayfly/mayfly/internal/docdb/spill"
)

// item is a test item: a sort key and its insertion order (to check
// stability).
type item struct{ key, seq int64 }

func options(dir string, maxMem int64, disk bool, keep int64) spill.Options[item] {
	return spill.Options[item]{
		Compare: func(a, b item) int { return cmp.Compare(a.key, b.key) },
		Size:    func(item) int64 { return 16 },
		Encode: func(dst []byte, v item) ([]byte, error) {
			dst = binary.AppendVarint(dst, v.key)
			return binary.AppendVarint(dst, v.seq), nil
		},
		Decode: func(b []byte) (item, error) {
			k, n := binary.Varint(b)
			s, _ := binary.Varint(b[n:])
			return item{key: k, seq: s}, nil
		},
		MaxMemory: maxMem, AllowDisk: disk, Dir: dir, Keep: keep,
	}
}

func drain(t *testing.T, s *spill.Sorter[item]) []item {
	t.Helper()
	if err := s.Sort(); err != nil {
		t.Fatal(err)
	}
	var out []item
	for {
		v, ok, err := s.Next()
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			return out
		}
		out = append(out, v)
	}
}

func files(t *testing.T, dir string) int {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	return len(ents)
}

// Ensure that a sorter over a tiny budget spills runs, returns every item
// in stable order, keeps only the first Keep with a limit, and removes its
// files on Close.
func TestSorterSpillsAndMerges(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var in []item
	for i := range 5000 {
		in = append(in, item{key: r.Int64N(300), seq: int64(i)})
	}
	want := slices.Clone(in)
	slices.SortStableFunc(want, func(a, b item) int { return cmp.Compare(a.key, b.key) })

	for _, keep := range []int64{0, 1, 37, 4999, 6000} {
		dir := t.TempDir() + "/tmp"
		s := spill.New(options(dir, 16*100, true, keep))
		for _, v := range in {
			if err := s.Add(v); err != nil {
				t.Fatal(err)
			}
		}
		if keep == 0 && s.Runs() < 40 {
			t.Fatalf("%d runs for 5000 items over a budget of 100", s.Runs())
		}
		if got := files(t, dir); got != s.Runs() {
			t.Fatalf("%d files for %d runs", got, s.Runs())
		}
		got := drain(t, s)
		w := want
		if keep > 0 && keep < int64(len(w)) {
			w = w[:keep]
		}
		if !slices.Equal(got, w) {
			t.Fatalf("keep %d: %d items out of order or missing (want %d)", keep, len(got), len(w))
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		if n := files(t, dir); n != 0 {
			t.Fatalf("keep %d: %d run files left after Close", keep, n)
		}
	}
}

// Ensure that without disk use the budget is a hard limit, and that a
// sorter within its budget writes nothing.
func TestSorterMemoryLimitWithoutDisk(t *testing.T) {
	dir := t.TempDir() + "/tmp"
	s := spill.New(options(dir, 16*10, false, 0))
	var err error
	for i := range 11 {
		if err = s.Add(item{key: int64(-i)}); err != nil {
			break
		}
	}
	if !errors.Is(err, spill.ErrMemoryLimit) {
		t.Fatalf("err = %v, want ErrMemoryLimit", err)
	}
	s.Close()

	// A limit keeps the sort within the budget: no error, no file.
	s = spill.New(options(dir, 16*10, false, 3))
	for i := range 1000 {
		if err := s.Add(item{key: int64(1000 - i), seq: int64(i)}); err != nil {
			t.Fatal(err)
		}
	}
	got := drain(t, s)
	if len(got) != 3 || got[0].key != 1 || got[2].key != 3 || files(t, dir) != 0 {
		t.Fatalf("top 3 %v, %d files", got, files(t, dir))
	}
	s.Close()
}
