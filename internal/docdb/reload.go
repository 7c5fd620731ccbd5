package docdb

import (
	"fmt"

	"github.com/mayfly/mayfly/internal/docdb/catalog"
	"github.com/mayfly/mayfly/internal/storage"
)

// ErrNotPrimary is the error of a write on a replica set member that is
// not the primary.
var ErrNotPrimary = storage.ErrNotPrimary

// Reload rebuilds the engine's in-memory catalog (collections, indexes,
// counters) and its TTL sources from storage. A member of a replica set
// calls it after batches written by another member were applied to its
// store, which the engine did not see. It returns the collections that
// those batches dropped or renamed.
func (e *Engine) Reload() ([]catalog.Gone, error) {
	e.ddl.Lock()
	defer e.ddl.Unlock()
	fresh, err := catalog.Load(e.store)
	if err != nil {
		return nil, fmt.Errorf("docdb: reload the catalog: %w", err)
	}
	e.unregisterAllSources()
	e.mu.RLock()
	colls := make([]*catalog.Collection, 0, len(e.cat.Colls))
	for _, c := range e.cat.Colls {
		colls = append(colls, c)
	}
	e.mu.RUnlock()
	for _, c := range colls {
		c.WriteMu.Lock()
	}
	e.mu.Lock()
	gone := e.cat.Replace(fresh)
	e.mu.Unlock()
	for _, c := range colls {
		c.WriteMu.Unlock()
	}
	e.registerAllTTL()
	return gone, nil
}
