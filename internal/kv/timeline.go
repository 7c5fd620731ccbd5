package kv

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/mayfly/mayfly/internal/expiry"
)

var _ expiry.Timeline = (*indexSource)(nil)

// CountDueBefore implements expiry.Timeline with one walk of the expiry
// index's keys up to the last edge; an entry is due from the millisecond
// after its expiry time on, as NextDue says.
func (x *indexSource) CountDueBefore(ctx context.Context, edges []time.Time) ([]int64, error) {
	ms := expiry.EdgesMillis(edges)
	counts := make([]int64, len(ms))
	if len(ms) == 0 {
		return counts, nil
	}
	idb := x.indexDB(x.s.dbmapAtomic.Load()[x.db])
	// due <= last ⟺ at < last.
	it, err := x.s.st.NewIter(expiryPrefix(idb), expiryKey(nil, idb, ms[len(ms)-1], nil))
	if err != nil {
		return nil, fmt.Errorf("kv: %s timeline: %w", x.name, err)
	}
	defer it.Close()
	n := 0
	for ok := it.First(); ok; ok = it.Next() {
		if n++; n%4096 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if at, _, ok := decodeExpiryKey(it.Key()); ok {
			expiry.AddDue(counts, ms, at+1)
		}
	}
	if err := it.Error(); err != nil {
		return nil, fmt.Errorf("kv: %s timeline: %w", x.name, err)
	}
	expiry.Cumulate(counts)
	return counts, nil
}

// CountItems implements expiry.ItemCounter for the keys of a database:
// the store's count of keys with an expiry, kept with every write. The
// expiring hash fields have no such count, so they are walked.
func (x *indexSource) CountItems(ctx context.Context) (int64, error) {
	if x.field {
		counts, err := x.CountDueBefore(ctx, []time.Time{expiry.Forever})
		if err != nil {
			return 0, err
		}
		return counts[0], nil
	}
	tx := x.s.Begin()
	defer tx.Rollback()
	if err := tx.Use(x.db); err != nil {
		return 0, err
	}
	return tx.counters(tx.pdb).expires, nil
}

// PrefixCounts are the due counts of the keys of one prefix.
type PrefixCounts struct {
	// Prefix is the key up to its first ':' (the whole key when it has
	// none); "" stands for the keys of the prefixes past the top ones.
	Prefix string
	// DueBefore[i] counts the keys due at or before edges[i].
	DueBefore []int64
}

// DuePrefixes counts the keys of logical database db due at or before
// each of the ascending edges, by key prefix, in one walk of the expiry
// index up to the last edge: the top prefixes by count at the last edge,
// then one entry ("") for all the others.
func (s *Store) DuePrefixes(ctx context.Context, db int, edges []time.Time, top int) ([]PrefixCounts, error) {
	if db < 0 || db >= NumDBs {
		return nil, fmt.Errorf("kv: no database %d", db)
	}
	ms := expiry.EdgesMillis(edges)
	if len(ms) == 0 {
		return nil, nil
	}
	idb := s.dbmapAtomic.Load()[db]
	it, err := s.st.NewIter(expiryPrefix(idb), expiryKey(nil, idb, ms[len(ms)-1], nil))
	if err != nil {
		return nil, fmt.Errorf("kv: due prefixes of db%d: %w", db, err)
	}
	defer it.Close()
	byPrefix := map[string][]int64{}
	n := 0
	for ok := it.First(); ok; ok = it.Next() {
		if n++; n%4096 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		at, key, ok := decodeExpiryKey(it.Key())
		if !ok {
			continue
		}
		if i := bytes.IndexByte(key, ':'); i >= 0 {
			key = key[:i]
		}
		counts := byPrefix[string(key)]
		if counts == nil {
			counts = make([]int64, len(ms))
			byPrefix[string(key)] = counts
		}
		expiry.AddDue(counts, ms, at+1)
	}
	if err := it.Error(); err != nil {
		return nil, fmt.Errorf("kv: due prefixes of db%d: %w", db, err)
	}
	out := make([]PrefixCounts, 0, len(byPrefix))
	for p, counts := range byPrefix {
		expiry.Cumulate(counts)
		out = append(out, PrefixCounts{Prefix: p, DueBefore: counts})
	}
	slices.SortFunc(out, func(a, b PrefixCounts) int {
		if c := cmp.Compare(b.DueBefore[len(ms)-1], a.DueBefore[len(ms)-1]); c != 0 {
			return c
		}
		return strings.Compare(a.Prefix, b.Prefix)
	})
	if len(out) > top {
		rest := PrefixCounts{DueBefore: make([]int64, len(ms))}
		for _, p := range out[top:] {
			for i, c := range p.DueBefore {
				rest.DueBefore[i] += c
			}
		}
		out = append(out[:top], rest)
	}
	return out, nil
}
