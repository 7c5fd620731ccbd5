package geo

// PartialSort orders s by cmp (negative, zero, positive as for
// slices.SortFunc) far enough that positions lo through hi hold what a
// full sort would put there, and does it as Redis orders a search result
// that COUNT cuts: the quicksort of Bentley and McIlroy's "Engineering a
// Sort Function" (median of three, or of nine past 40 elements; equal keys
// gathered at both ends and swapped into the middle; insertion sort below 7
// elements), skipping the partitions that lie wholly outside [lo, hi].
// Elements that compare equal therefore come out in Redis's order, which
// no stable sort reproduces.
func PartialSort[T any](s []T, cmp func(a, b T) int, lo, hi int) {
	q := partialSorter[T]{s: s, cmp: cmp, lo: lo, hi: hi}
	q.sort(0, len(s))
}

type partialSorter[T any] struct {
	s      []T
	cmp    func(a, b T) int
	lo, hi int
}

func (q *partialSorter[T]) less(i, j int) int { return q.cmp(q.s[i], q.s[j]) }

func (q *partialSorter[T]) swap(i, j int) { q.s[i], q.s[j] = q.s[j], q.s[i] }

// swapRuns exchanges the n elements from i with the n from j.
func (q *partialSorter[T]) swapRuns(i, j, n int) {
	for k := range n {
		q.swap(i+k, j+k)
	}
}

// median3 returns the index of the median of three elements.
func (q *partialSorter[T]) median3(a, b, c int) int {
	if q.less(a, b) < 0 {
		switch {
		case q.less(b, c) < 0:
			return b
		case q.less(a, c) < 0:
			return c
		}
		return a
	}
	switch {
	case q.less(b, c) > 0:
		return b
	case q.less(a, c) < 0:
		return a
	}
	return c
}

// overlaps reports whether [first, last] meets the wanted positions.
func (q *partialSorter[T]) overlaps(first, last int) bool {
	return !((q.lo < first && q.hi < first) || (q.lo > last && q.hi > last))
}

// sort orders the n elements from a.
func (q *partialSorter[T]) sort(a, n int) {
	for {
		if n < 7 {
			for m := a + 1; m < a+n; m++ {
				for l := m; l > a && q.less(l-1, l) > 0; l-- {
					q.swap(l, l-1)
				}
			}
			return
		}
		m := a + n/2
		if n > 7 {
			l, last := a, a+n-1
			if n > 40 {
				d := n / 8
				l = q.median3(l, l+d, l+2*d)
				m = q.median3(m-d, m, m+d)
				last = q.median3(last-2*d, last-d, last)
			}
			m = q.median3(l, m, last)
		}
		q.swap(a, m) // the pivot, at a
		// [a+1, pa): equal to the pivot; [pa, pb): less; (pc, pd]:
		// greater; (pd, a+n): equal.
		pa, pb := a+1, a+1
		pc, pd := a+n-1, a+n-1
		for {
			for pb <= pc {
				r := q.less(pb, a)
				if r > 0 {
					break
				}
				if r == 0 {
					q.swap(pa, pb)
					pa++
				}
				pb++
			}
			for pb <= pc {
				r := q.less(pc, a)
				if r < 0 {
					break
				}
				if r == 0 {
					q.swap(pc, pd)
					pd--
				}
				pc--
			}
			if pb > pc {
				break
			}
			q.swap(pb, pc)
			pb++
			pc--
		}
		end := a + n
		r := min(pa-a, pb-pa)
		q.swapRuns(a, pb-r, r)
		r = min(pd-pc, end-pd-1)
		q.swapRuns(pb, end-r, r)
		if r := pb - pa; r > 1 && q.overlaps(a, a+r-1) {
			q.sort(a, r)
		}
		r = pd - pc
		if r <= 1 {
			return
		}
		a, n = end-r, r
		if !q.overlaps(a, a+r-1) {
			return
		}
	}
}
