package docdb

import (
	"context"
	"fmt"

	"github.com/mayfly/mayfly/internal/docdb/catalog"
	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
	"github.com/mayfly/mayfly/internal/storage"
)

// Compact compacts the key spans of db.coll (its documents, the entries
// of each of its indexes and a capped collection's natural order) down to
// the bottom level of the store, so that its deleted data is erased from
// disk (compact). It returns the bytes freed: the estimated disk use of
// those spans before less after, zero when it grew under concurrent
// writes. A missing collection fails with NamespaceNotFound (26).
func (e *Engine) Compact(ctx context.Context, db, coll string) (int64, error) {
	if err := catalog.CheckReadNS(db, coll); err != nil {
		return 0, err
	}
	e.mu.RLock()
	c := e.cat.Lookup(db, coll)
	e.mu.RUnlock()
	if c == nil {
		return 0, mongoerr.Newf(mongoerr.NamespaceNotFound, "collection does not exist")
	}
	prefixes := [][]byte{catalog.DocPrefix(c.Meta.ID), catalog.NaturalPrefix(c.Meta.ID)}
	for _, ix := range c.Meta.Indexes {
		if !ix.IsID {
			prefixes = append(prefixes, catalog.IndexPrefix(ix.ID))
		}
	}
	usage := func() (uint64, error) {
		var total uint64
		for _, p := range prefixes {
			n, err := e.store.SpanUsage(p, storage.PrefixEnd(p))
			if err != nil {
				return 0, err
			}
			total += n
		}
		return total, nil
	}
	before, err := usage()
	if err != nil {
		return 0, fmt.Errorf("docdb: compact %s.%s: %w", db, coll, err)
	}
	for _, p := range prefixes {
		if err := e.store.Compact(ctx, p, storage.PrefixEnd(p)); err != nil {
			return 0, fmt.Errorf("docdb: compact %s.%s: %w", db, coll, err)
		}
	}
	after, err := usage()
	if err != nil {
		return 0, fmt.Errorf("docdb: compact %s.%s: %w", db, coll, err)
	}
	if after >= before {
		return 0, nil
	}
	return int64(before - after), nil
}
