package geo

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"
)

type keyed struct {
	key  int
	name string
}

func byKey(a, b keyed) int { return cmp.Compare(a.key, b.key) }

func names(s []keyed) string {
	out := ""
	for _, k := range s {
		out += k.name
	}
	return out
}

// Redis's order of equal elements, as GEOSEARCH ... COUNT answers it for
// five points at one place (a to e, found in that order) and two farther.
func TestPartialSortTiesAsRedis(t *testing.T) {
	in := []keyed{{0, "a"}, {0, "b"}, {0, "c"}, {0, "d"}, {0, "e"}, {1, "f"}, {1, "g"}}
	for _, c := range []struct {
		count int
		desc  bool
		want  string
	}{{3, false, "dbc"}, {3, true, "fgc"}, {6, false, "dbcaef"}} {
		s := slices.Clone(in)
		f := byKey
		if c.desc {
			f = func(a, b keyed) int { return -byKey(a, b) }
		}
		PartialSort(s, f, 0, c.count-1)
		if got := names(s[:c.count]); got != c.want {
			t.Errorf("count %d desc %v: %s, want %s", c.count, c.desc, got, c.want)
		}
	}
}

// The wanted positions hold the keys a full sort puts there, and nothing
// is lost.
func TestPartialSortSelects(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for range 500 {
		n := 1 + r.IntN(300)
		s := make([]keyed, n)
		for i := range s {
			s[i] = keyed{r.IntN(1 + r.IntN(50)), string(rune('a' + i%26))}
		}
		want := slices.Clone(s)
		slices.SortStableFunc(want, byKey)
		lo := r.IntN(n)
		if r.IntN(5) == 0 {
			lo = 0
		}
		hi := lo + r.IntN(n-lo)
		if r.IntN(5) == 0 {
			hi = n - 1
		}
		got := slices.Clone(s)
		PartialSort(got, byKey, lo, hi)
		for i := lo; i <= hi; i++ {
			if got[i].key != want[i].key {
				t.Fatalf("n %d [%d, %d]: position %d has key %d, want %d", n, lo, hi, i, got[i].key, want[i].key)
			}
		}
		if lo == 0 && hi == n-1 && !slices.IsSortedFunc(got, byKey) {
			t.Fatalf("n %d: the full range is not sorted", n)
		}
		slices.SortStableFunc(got, byKey)
		if !slices.EqualFunc(got, want, func(a, b keyed) bool { return a.key == b.key }) {
			t.Fatalf("n %d: elements lost", n)
		}
	}
}
