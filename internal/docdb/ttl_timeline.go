package docdb

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/mayfly/mayfly/internal/docdb/catalog"
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/expiry"
)

var _ expiry.Timeline = (*ttlSource)(nil)

// CountDueBefore implements expiry.Timeline: one walk of the Date entries
// of the index up to the last edge less expireAfterSeconds, each document
// counted once at its earliest date, as the sweeper reaps it.
func (s *ttlSource) CountDueBefore(ctx context.Context, edges []time.Time) ([]int64, error) {
	ms := expiry.EdgesMillis(edges)
	counts := make([]int64, len(ms))
	_, _, ix := s.current()
	if ix == nil || len(ms) == 0 {
		return counts, nil
	}
	lo, hi, err := dateRange(ix, ms[len(ms)-1]-ix.ExpireAfter*1000, false)
	if err != nil {
		return nil, err
	}
	if bytes.Compare(lo, hi) >= 0 {
		return counts, nil
	}
	it, err := s.e.store.NewIter(lo, hi)
	if err != nil {
		return nil, err
	}
	defer it.Close()
	var seen map[string]int64 // a multikey document's earliest date
	if ix.Multikey {
		seen = map[string]int64{}
	}
	n := 0
	for ok := it.First(); ok; ok = it.Next() {
		if n++; n%4096 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		date, idEnc, err := entryDate(ix, it.Key())
		if err != nil {
			return nil, err
		}
		if seen != nil {
			if d, ok := seen[string(idEnc)]; ok && d <= date {
				continue
			}
			seen[string(idEnc)] = date
			continue
		}
		expiry.AddDue(counts, ms, catalog.AddSeconds(date, ix.ExpireAfter))
	}
	if err := it.Error(); err != nil {
		return nil, err
	}
	for _, date := range seen {
		expiry.AddDue(counts, ms, catalog.AddSeconds(date, ix.ExpireAfter))
	}
	expiry.Cumulate(counts)
	return counts, nil
}

// TTLIndex describes one TTL index for the console's sources table.
type TTLIndex struct {
	// Source is its expiry source name (ttl_index:db.coll.index).
	Source                string
	DB, Collection, Index string
	Field                 string
	ExpireAfterSeconds    int64
	// PartialFilter is the partialFilterExpression as relaxed extended
	// JSON; empty when the index is full.
	PartialFilter       string
	Clustered, Multikey bool
}

// TTLIndexes lists the TTL indexes whose sources are registered, by source
// name.
func (e *Engine) TTLIndexes() []TTLIndex {
	e.mu.RLock()
	defer e.mu.RUnlock()
	var out []TTLIndex
	for _, c := range e.cat.Colls {
		m := c.Meta
		add := func(ix *catalog.IndexMeta, name string) {
			t := TTLIndex{Source: name, DB: m.DB, Collection: m.Name, Index: ix.Name, Field: ix.Fields[0].Path,
				ExpireAfterSeconds: ix.ExpireAfter, Clustered: ix.ClusterColl != 0, Multikey: ix.Multikey}
			if v, ok := catalog.FieldOf(ix.Spec, "partialFilterExpression"); ok {
				if d, ok := v.(bson.D); ok {
					if b, err := bson.MarshalExtJSON(d, false, false); err == nil {
						t.PartialFilter = string(b)
					}
				}
			}
			out = append(out, t)
		}
		if ix := m.ClusteredTTLIndex(); ix != nil {
			add(ix, fmt.Sprintf("ttl_index:%s.%s.%s", m.DB, m.Name, catalog.IDIndexName))
		}
		for _, ix := range m.Indexes {
			if ix.TTL && ix.TTLValid && len(ix.Fields) == 1 && !ix.IsID {
				add(ix, ttlSourceName(m, ix))
			}
		}
	}
	slices.SortFunc(out, func(a, b TTLIndex) int { return strings.Compare(a.Source, b.Source) })
	return out
}
