package kv

import (
	"bytes"
	"cmp"
	"math"
	"slices"
	"strconv"
	"strings"
)

// SortOptions are the options of SORT and SORT_RO.
type SortOptions struct {
	// By is the BY pattern; nil sorts by the elements themselves, and a
	// pattern without '*' does not sort at all.
	By []byte
	// Gets are the GET patterns; "#" is the element itself.
	Gets [][]byte
	// Desc and Alpha are DESC and ALPHA.
	Desc, Alpha bool
	// Offset and Count are LIMIT; Count < 0 means no limit.
	Offset, Count int64
	// Store is the STORE destination; nil returns the result instead.
	Store []byte
}

type sortItem struct {
	elem  []byte
	score float64
	cmp   []byte // the BY value with ALPHA
	hasBy bool
}

// Sort runs SORT on the list, set or sorted set at key (a missing key is an
// empty list) and returns its output: the elements, or for each element
// one value per GET pattern, nil where a pattern found nothing.
func (tx *Tx) Sort(key []byte, o SortOptions) ([][]byte, error) {
	items, start, end, err := tx.sortItems(key, &o)
	if err != nil {
		return nil, err
	}
	out := [][]byte{}
	for j := start; j <= end; j++ {
		if len(o.Gets) == 0 {
			out = append(out, items[j].elem)
			continue
		}
		for _, g := range o.Gets {
			v, ok, err := tx.sortLookup(g, items[j].elem)
			if err != nil {
				return nil, err
			}
			if !ok {
				v = nil
			}
			out = append(out, v)
		}
	}
	return out, nil
}

// SortStore runs SORT ... STORE dst: the output becomes a list at dst
// (missing GET values stored as empty strings), replacing it and its
// expiry, and its length is returned. An empty output deletes dst
// (`del`); otherwise the event is `sortstore`.
func (tx *Tx) SortStore(key []byte, o SortOptions, dst []byte) (int64, error) {
	o.Store = dst
	out, err := tx.Sort(key, o)
	if err != nil {
		return 0, err
	}
	for i, v := range out {
		if v == nil {
			out[i] = []byte{}
		}
	}
	old, found, err := tx.Lookup(dst)
	if err != nil {
		return 0, err
	}
	if len(out) == 0 {
		if found {
			return 0, tx.deleteColl(dst, old)
		}
		return 0, nil
	}
	// A new list replaces dst whatever it held, and without its expiry.
	l := listState{orig: old, found: found, version: tx.NewVersion(), head: listMid, tail: listMid}
	if err := tx.listPush(&l, ListRight, out); err != nil {
		return 0, err
	}
	if err := tx.listSave(dst, &l); err != nil {
		return 0, err
	}
	tx.notify(ClassList, "sortstore", dst)
	return int64(len(out)), nil
}

// sortItems loads and sorts the elements and returns the LIMIT window
// [start, end] (end < start when empty).
func (tx *Tx) sortItems(key []byte, o *SortOptions) ([]sortItem, int64, int64, error) {
	m, ok, err := tx.LookupRead(key)
	if err != nil {
		return nil, 0, 0, err
	}
	if ok && m.Type != TypeList && m.Type != TypeSet && m.Type != TypeZSet {
		return nil, 0, 0, ErrWrongType
	}
	dontsort := o.By != nil && bytes.IndexByte(o.By, '*') < 0
	if dontsort && ok && m.Type == TypeSet && o.Store != nil {
		// A set has no order of its own: STORE sorts it so the stored
		// list is deterministic, as Redis does.
		dontsort, o.Alpha, o.By = false, true, nil
	}
	var elems [][]byte
	if ok {
		if elems, err = tx.sortElems(key, m); err != nil {
			return nil, 0, 0, err
		}
		if dontsort && o.Desc && m.Type != TypeSet {
			slices.Reverse(elems)
		}
	}
	items := make([]sortItem, len(elems))
	for i, e := range elems {
		items[i].elem = e
	}
	if !dontsort {
		if err := tx.sortByKeys(items, o); err != nil {
			return nil, 0, 0, err
		}
	}
	start, end := sortWindow(int64(len(items)), o)
	return items, start, end, nil
}

// sortElems returns the elements of the list, set or sorted set m at key in
// their own order.
func (tx *Tx) sortElems(key []byte, m Meta) ([][]byte, error) {
	switch m.Type {
	case TypeList:
		l, err := tx.listFor(key, false)
		if err != nil {
			return nil, err
		}
		return tx.listRange(&l, 0, l.len()-1, false)
	case TypeSet:
		elems, _, err := tx.collMembers(m.Version, nil)
		return elems, err
	case TypeZSet:
		z := zsetState{orig: m, found: true, version: m.Version, count: int64(m.Count())}
		els, err := tx.zsetRange(&z, ZRangeSpec{Kind: ZByRank, Start: 0, Stop: -1})
		if err != nil {
			return nil, err
		}
		elems := make([][]byte, 0, len(els))
		for _, e := range els {
			elems = append(elems, e.Member)
		}
		return elems, nil
	}
	return nil, nil
}

// sortByKeys gives each item its sort key (the element, or the BY lookup
// when it finds one; a number unless ALPHA) and sorts the items stably by
// it, ErrSortNotDouble when a key that must be a number is not.
func (tx *Tx) sortByKeys(items []sortItem, o *SortOptions) error {
	convErr := false
	for i := range items {
		by := items[i].elem
		if o.By != nil {
			v, found, err := tx.sortLookup(o.By, items[i].elem)
			if err != nil {
				return err
			}
			if !found {
				continue
			}
			by = v
		}
		items[i].hasBy = true
		if o.Alpha {
			items[i].cmp = by
			continue
		}
		f, ok := parseSortScore(by)
		if !ok {
			convErr = true
		}
		items[i].score = f
	}
	if convErr {
		return ErrSortNotDouble
	}
	slices.SortStableFunc(items, func(a, b sortItem) int {
		c := sortCompare(a, b, o)
		if o.Desc {
			return -c
		}
		return c
	})
	return nil
}

// sortWindow is the LIMIT window [start, end] over n sorted items (end <
// start when empty).
func sortWindow(n int64, o *SortOptions) (int64, int64) {
	start := min(max(o.Offset, 0), n)
	count := min(max(o.Count, -1), n)
	end := n - 1
	if count >= 0 {
		end = start + count - 1
	}
	if start >= n {
		start, end = n-1, n-2
	}
	if end >= n {
		end = n - 1
	}
	return start, end
}

func sortCompare(a, b sortItem, o *SortOptions) int {
	if !o.Alpha {
		if c := cmp.Compare(a.score, b.score); c != 0 {
			return c
		}
		return bytes.Compare(a.elem, b.elem)
	}
	if o.By != nil {
		switch {
		case !a.hasBy && !b.hasBy:
			return 0
		case !a.hasBy:
			return -1
		case !b.hasBy:
			return 1
		}
		return bytes.Compare(a.cmp, b.cmp)
	}
	return bytes.Compare(a.elem, b.elem)
}

// parseSortScore parses a SORT weight as strtod does there: leading spaces
// skipped, the empty string is 0, trailing junk, NaN and out-of-range
// values refused.
func parseSortScore(b []byte) (float64, bool) {
	s := strings.TrimLeft(string(b), " \t\n\v\f\r")
	if s == "" {
		return 0, true
	}
	if strings.ContainsRune(s, '_') {
		return 0, false
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(f) || (f == 0 && hasNonZeroDigit(s) && !isHexFloat(s)) {
		return 0, false
	}
	return f, true
}

// sortLookup resolves a BY or GET pattern for one element, as Redis's
// lookupKeyByPattern: "#" is the element; the first '*' is replaced by
// it; "key->field" reads a hash field, otherwise a string key. ok is false
// when the pattern has no '*' or nothing of the right type is there.
func (tx *Tx) sortLookup(pattern, elem []byte) ([]byte, bool, error) {
	if len(pattern) == 1 && pattern[0] == '#' {
		return elem, true, nil
	}
	p := bytes.IndexByte(pattern, '*')
	if p < 0 {
		return nil, false, nil
	}
	keyEnd := len(pattern)
	var field []byte
	if f := bytes.Index(pattern[p+1:], []byte("->")); f >= 0 && p+1+f+2 < len(pattern) {
		field = pattern[p+1+f+2:]
		keyEnd = p + 1 + f
	}
	key := make([]byte, 0, keyEnd+len(elem))
	key = append(append(append(key, pattern[:p]...), elem...), pattern[p+1:keyEnd]...)
	if field != nil {
		return tx.hashFieldValue(key, field)
	}
	m, ok, err := tx.LookupRead(key)
	if err != nil || !ok || m.Type != TypeString {
		return nil, false, err
	}
	return m.Payload, true, nil
}
