package docdb

import (
	"context"
	"errors"
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/catalog"
	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
)

// Validation is the outcome of Validate on one collection.
type Validation struct {
	UUID bson.Binary
	// NRecords is the number of documents, and KeysPerIndex the entries of
	// each index in catalog order: counted by the check when it passed,
	// read from the collection's counters when it failed.
	NRecords     int64
	KeysPerIndex []IndexKeyCount
	// Errors holds the violation the check found (it stops at the first);
	// the collection is valid when it is empty.
	Errors []string
}

// IndexKeyCount is the number of entries of one index.
type IndexKeyCount struct {
	Name string
	Keys int64
}

// Valid reports whether the check found no violation.
func (v Validation) Valid() bool { return len(v.Errors) == 0 }

// Validate runs the storage check of Check on db.coll alone, on one
// snapshot (validate). A missing collection fails with NamespaceNotFound
// (26). A violation is reported in the result, not as an error; an error is
// returned only when the check could not run.
func (e *Engine) Validate(ctx context.Context, db, coll string) (Validation, error) {
	if err := catalog.CheckReadNS(db, coll); err != nil {
		return Validation{}, err
	}
	e.mu.RLock()
	c := e.cat.Lookup(db, coll)
	if c == nil {
		e.mu.RUnlock()
		return Validation{}, mongoerr.Newf(mongoerr.NamespaceNotFound, "Collection '%s.%s' does not exist to validate.", db, coll)
	}
	meta, ctr := c.Meta, c.Stats
	snap := e.store.NewSnapshot()
	e.mu.RUnlock()
	defer snap.Close()
	v := Validation{UUID: meta.UUID}
	tally, err := checkCollection(ctx, snap, meta, ctr)
	switch {
	case err == nil:
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return Validation{}, fmt.Errorf("docdb: validate %s.%s: %w", db, coll, err)
	default:
		v.Errors = []string{err.Error()}
		docs, _, idx := ctr.Snapshot()
		tally = collTally{docs: docs, entries: map[uint64]int64{}}
		for _, ix := range meta.Indexes {
			tally.entries[ix.ID] = idx[ix.ID].Keys
		}
	}
	v.NRecords = tally.docs
	for _, ix := range meta.Indexes {
		v.KeysPerIndex = append(v.KeysPerIndex, IndexKeyCount{Name: ix.Name, Keys: tally.entries[ix.ID]})
	}
	return v, nil
}
