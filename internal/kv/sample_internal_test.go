package kv

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// sampleSet stores a set of size members named m0, m1, ... (a key space
// far from uniform: m1, m10, m100 sit next to each other) and returns an
// open read transaction on it with the set's state.
func sampleSet(t *testing.T, size int) (*Tx, setState) {
	t.Helper()
	now := int64(1_000_000)
	s := internalStore(t, &now)
	members := make([][]byte, size)
	for i := range members {
		members[i] = fmt.Appendf(nil, "m%d", i)
	}
	tx := s.Begin()
	if _, err := tx.SAdd([]byte("s"), members); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	tx = s.Begin()
	t.Cleanup(tx.Rollback)
	st, err := tx.setFor([]byte("s"), true)
	if err != nil || !st.found || st.count != int64(size) {
		t.Fatalf("set: %v %v %d", err, st.found, st.count)
	}
	return tx, st
}

// chiSquare returns the chi-square statistic of counts against equal
// expected frequencies, and its bound: the degrees of freedom plus six
// standard deviations (sqrt(2 df)), which a uniform sampler exceeds with
// negligible probability and a sampler favouring some members by even a
// few percent over thousands of members does not stay under.
func chiSquare(counts []int) (stat, bound float64) {
	total := 0
	for _, c := range counts {
		total += c
	}
	e := float64(total) / float64(len(counts))
	for _, c := range counts {
		d := float64(c) - e
		stat += d * d / e
	}
	df := float64(len(counts) - 1)
	return stat, df + 6*math.Sqrt(2*df)
}

// Ensure that a positive count returns exactly min(count, size) distinct
// members and a negative count exactly |count| picks, for every strategy.
func TestCollRandomCounts(t *testing.T) {
	tx, st := sampleSet(t, 2000)
	r := rand.New(rand.NewPCG(1, 2))
	for _, c := range []struct {
		n      int64
		unique bool
		want   int
	}{
		{1, true, 1}, {50, true, 50}, {499, true, 499}, {1000, true, 1000}, {1999, true, 1999},
		{2000, true, 2000}, {5000, true, 2000}, {1, false, 1}, {50, false, 50}, {5000, false, 5000},
	} {
		keys, vals, err := tx.collRandomWith(r, st.version, nil, st.count, c.n, c.unique)
		if err != nil || len(keys) != c.want || len(vals) != c.want {
			t.Fatalf("n=%d unique=%v: %d keys, %d vals, %v; want %d", c.n, c.unique, len(keys), len(vals), err, c.want)
		}
		seen := map[string]bool{}
		for _, k := range keys {
			var i int
			if _, err := fmt.Sscanf(string(k), "m%d", &i); err != nil || i < 0 || i >= 2000 {
				t.Fatalf("n=%d: picked %q", c.n, k)
			}
			if c.unique && seen[string(k)] {
				t.Fatalf("n=%d: %q picked twice", c.n, k)
			}
			seen[string(k)] = true
		}
	}
	// A record counting more members than are stored still gives only
	// stored members, as many as asked (or as there are).
	for _, unique := range []bool{true, false} {
		keys, _, err := tx.collRandomWith(r, st.version, nil, 3000, 2500, unique)
		want := 2000
		if !unique {
			want = 2500
		}
		if err != nil || len(keys) != want {
			t.Errorf("overcounted, unique=%v: %d keys, %v", unique, len(keys), err)
		}
	}
}

// Ensure that every member is about equally likely, with and without
// repetition (a fixed seed keeps the test deterministic).
func TestCollRandomSpread(t *testing.T) {
	const size = 2000
	tx, st := sampleSet(t, size)
	for _, c := range []struct {
		name   string
		n      int64
		unique bool
		rounds int
	}{
		{"distinct 50", 50, true, 2000},
		{"distinct 1500", 1500, true, 60},
		{"one", 1, true, 8000},
		{"repeating 1000", 1000, false, 100},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(7, 11))
			counts := make([]int, size)
			first := make([]int, size) // which member comes first: the order is random too
			for range c.rounds {
				keys, _, err := tx.collRandomWith(r, st.version, nil, st.count, c.n, c.unique)
				if err != nil {
					t.Fatal(err)
				}
				for i, k := range keys {
					var m int
					fmt.Sscanf(string(k), "m%d", &m)
					counts[m]++
					if i == 0 {
						first[m]++
					}
				}
			}
			if stat, bound := chiSquare(counts); stat > bound {
				t.Errorf("chi-square %.0f over %.0f: picks cluster", stat, bound)
			}
			if c.rounds >= 1000 && c.n > 1 {
				if stat, bound := chiSquare(first); stat > bound {
					t.Errorf("first pick: chi-square %.0f over %.0f: the order is not random", stat, bound)
				}
			}
		})
	}
}

// Ensure that the ranks drawn are what was asked: sorted, in range,
// distinct when they must be.
func TestPickRanks(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, c := range []struct {
		size, n int64
		unique  bool
	}{{10, 10, true}, {10, 6, true}, {1000, 3, true}, {1 << 40, 100, true}, {5, 100, false}} {
		ranks := pickRanks(r, c.size, c.n, c.unique)
		if int64(len(ranks)) != c.n {
			t.Fatalf("%+v: %d ranks", c, len(ranks))
		}
		for i, x := range ranks {
			if x < 0 || x >= c.size || (i > 0 && (x < ranks[i-1] || (c.unique && x == ranks[i-1]))) {
				t.Fatalf("%+v: ranks %v", c, ranks)
			}
		}
	}
}

// Ensure that picks with repetition stop at MaxRandomPicks, which is
// still served.
func TestCollRandomPickLimit(t *testing.T) {
	tx, st := sampleSet(t, 10)
	r := rand.New(rand.NewPCG(5, 6))
	keys, _, err := tx.collRandomWith(r, st.version, nil, st.count, MaxRandomPicks, false)
	if err != nil || len(keys) != MaxRandomPicks {
		t.Fatalf("at the limit: %d picks, %v", len(keys), err)
	}
	if _, _, err := tx.collRandomWith(r, st.version, nil, st.count, MaxRandomPicks+1, false); !errors.Is(err, ErrTooManyPicks) {
		t.Fatalf("over the limit: %v", err)
	}
	if _, ok, err := tx.SRandMember([]byte("s"), -(MaxRandomPicks + 1)); !ok || !errors.Is(err, ErrTooManyPicks) {
		t.Fatalf("SRandMember over the limit: %v %v", ok, err)
	}
	// Distinct picks are bounded by the size instead.
	if keys, _, err := tx.collRandomWith(r, st.version, nil, st.count, 1<<62, true); err != nil || len(keys) != 10 {
		t.Fatalf("distinct, huge count: %d, %v", len(keys), err)
	}
}
