package docdb

import (
	"context"

	"github.com/mayfly/mayfly/internal/docdb/catalog"
	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
)

// Statistics come from the per-collection counters (catalog.Counters), kept
// exact in the same batches as the data, so dbStats, collStats and
// listDatabases never scan. Sizes are logical: document bytes and index
// entry key bytes; storageSize reports the same figures, as mayfly does not
// attribute Pebble's compressed file sizes to collections.

func (e *Engine) dbStats(ctx context.Context, db string) (DBStats, error) {
	var st DBStats
	if err := catalog.CheckDB(db); err != nil {
		return st, err
	}
	e.mu.RLock()
	colls := e.cat.DBCollections(db)
	nIdx := make([]int, len(colls))
	for i, c := range colls {
		nIdx[i] = len(c.Meta.Indexes)
	}
	e.mu.RUnlock()
	for i, c := range colls {
		docs, bytes, idx := c.Stats.Snapshot()
		st.Collections++
		st.Objects += docs
		st.DataSize += bytes
		st.Indexes += int64(nIdx[i])
		st.IndexSize += indexBytes(idx)
	}
	st.StorageSize = st.DataSize
	st.TotalSize = st.StorageSize + st.IndexSize
	return st, nil
}

func (e *Engine) collStats(ctx context.Context, db, coll string) (CollStats, error) {
	var st CollStats
	if err := catalog.CheckReadNS(db, coll); err != nil {
		return st, err
	}
	e.mu.RLock()
	c := e.cat.Lookup(db, coll)
	var meta *catalog.CollMeta
	if c != nil {
		meta = c.Meta
	}
	e.mu.RUnlock()
	if c == nil {
		return st, mongoerr.Newf(mongoerr.NamespaceNotFound, "Collection [%s.%s] not found.", db, coll)
	}
	docs, bytes, idx := c.Stats.Snapshot()
	st.Count = docs
	st.Size = bytes
	if docs > 0 {
		st.AvgObjSize = bytes / docs
	}
	st.StorageSize = bytes
	if b, ok := meta.Capped(); ok {
		st.Capped, st.Max, st.MaxSize = true, b.MaxDocs, b.MaxSize
	}
	st.NIndexes = int64(len(meta.Indexes))
	for _, ix := range meta.Indexes {
		sz := idx[ix.ID].Bytes
		st.IndexSizes = append(st.IndexSizes, IndexSize{Name: ix.Name, Size: sz})
		st.TotalIndexSize += sz
	}
	return st, nil
}
