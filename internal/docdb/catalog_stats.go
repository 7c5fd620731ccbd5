package docdb

import (
	"strings"
)

// CatalogStats counts the collections of the catalog as serverStatus's
// catalogStats does. A collection is internal when it is in the admin,
// config or local database or its name starts with "system." (a
// time-series collection's buckets among them); the others are user
// collections, counted again by kind. Timeseries counts the time-series
// collections of user databases (each one's buckets collection).
type CatalogStats struct {
	Collections, Capped, Clustered, Timeseries, Internal int
}

// CatalogStats returns the catalog's counts.
func (e *Engine) CatalogStats() CatalogStats {
	e.mu.RLock()
	defer e.mu.RUnlock()
	var st CatalogStats
	for ns, c := range e.cat.Colls {
		internalDB := ns.DB == "admin" || ns.DB == "config" || ns.DB == "local"
		if strings.HasPrefix(ns.Coll, BucketsPrefix) && !internalDB {
			st.Timeseries++
		}
		if internalDB || strings.HasPrefix(ns.Coll, "system.") {
			st.Internal++
			continue
		}
		st.Collections++
		if _, ok := c.Meta.Capped(); ok {
			st.Capped++
		}
		if c.Meta.Clustered() {
			st.Clustered++
		}
	}
	return st
}
