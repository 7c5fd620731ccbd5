package kv

import (
	"context"
	"fmt"
	"time"

	"github.com/mayfly/mayfly/internal/expiry"
)

var _ expiry.Timeline = (*indexSource)(nil)

// CountDueBefore implements expiry.Timeline with one walk of the expiry
// index's keys up to the last edge; an entry expiring at at is due from
// at+1 ms on, as NextDue says.
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
