package policy

import (
	"context"
	"time"

	"github.com/mayfly/mayfly/internal/expiry"
)

var _ expiry.Timeline = (*policySource)(nil)

// CountDueBefore implements expiry.Timeline: one walk of each hidden index
// of the group up to the last edge less the offset.
func (s *policySource) CountDueBefore(ctx context.Context, edges []time.Time) ([]int64, error) {
	ms := expiry.EdgesMillis(edges)
	counts := make([]int64, len(ms))
	r := s.rule()
	if r == nil || len(ms) == 0 {
		return counts, nil
	}
	for _, ix := range s.p.groupIndexes(s.group, s.field) {
		lo, hi := DueRange(ix.ID, ms[len(ms)-1]-r.offsetMs)
		it, err := s.p.Store.NewIter(lo, hi)
		if err != nil {
			return nil, err
		}
		n := 0
		for ok := it.First(); ok; ok = it.Next() {
			if n++; n%4096 == 0 && ctx.Err() != nil {
				it.Close()
				return nil, ctx.Err()
			}
			d, _, err := policyEntry(it.Key())
			if err != nil {
				it.Close()
				return nil, err
			}
			expiry.AddDue(counts, ms, addMillis(d, r.offsetMs))
		}
		err = it.Error()
		it.Close()
		if err != nil {
			return nil, err
		}
	}
	expiry.Cumulate(counts)
	return counts, nil
}
