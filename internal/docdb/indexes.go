package docdb

import (
	"context"
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/catalog"
	"github.com/mayfly/mayfly/internal/docdb/events"
	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
	"github.com/mayfly/mayfly/internal/docdb/stored"
	"github.com/mayfly/mayfly/internal/storage"
)

// Index commands: createIndexes (with the build over existing documents),
// listIndexes and dropIndexes.

func (e *Engine) createIndexes(ctx context.Context, db, coll string, specs []IndexSpec) (CreateIndexesResult, error) {
	if err := catalog.CheckWriteNS(db, coll); err != nil {
		return CreateIndexesResult{}, err
	}
	c, created, err := e.lockOrCreateCollIn(ctx, db, coll)
	if err != nil {
		return CreateIndexesResult{}, err
	}
	return e.createIndexesOn(ctx, c, created, specs)
}

// createIndexesOn builds specs on c, whose write lock the caller holds;
// it releases it.
func (e *Engine) createIndexesOn(ctx context.Context, c *catalog.Collection, created bool, specs []IndexSpec) (CreateIndexesResult, error) {
	var res CreateIndexesResult
	defer c.WriteMu.Unlock()
	meta := c.Meta
	reqs := make([]*indexRequest, len(specs))
	for i, s := range specs {
		var err error
		if reqs[i], err = s.request(meta); err != nil {
			return res, err
		}
	}
	res.CreatedCollectionAutomatically = created
	res.NumIndexesBefore = len(meta.Indexes)
	build, err := indexesToBuild(meta, reqs)
	if err != nil {
		return res, err
	}
	if err := cappedRefusesTTL(meta, build); err != nil {
		return res, err
	}
	if len(build) == 0 {
		res.NumIndexesAfter = res.NumIndexesBefore
		res.Note = "all indexes already exist"
		return res, nil
	}
	if t := txnOf(ctx); t != nil {
		return t.createIndexesIn(c, created, build, res)
	}
	newIdx := make([]*catalog.IndexMeta, len(build))
	e.mu.Lock()
	ids := e.store.NewBatch()
	for i, r := range build {
		id, err := e.cat.AllocID(ids)
		if err != nil {
			e.mu.Unlock()
			ids.Close()
			return res, err
		}
		ix, err := catalog.IndexFromSpec(id, r.spec)
		if err != nil {
			e.mu.Unlock()
			ids.Close()
			return res, err
		}
		ix.Ready = true
		newIdx[i] = ix
	}
	// The build records go with the ids, before any entry (index_build.go).
	if err := putBuildRecords(ids, meta.ID, newIdx); err != nil {
		e.mu.Unlock()
		ids.Close()
		return res, err
	}
	err = ids.Commit()
	ids.Close()
	if err == nil {
		for _, ix := range newIdx {
			e.building[ix.ID] = true
		}
	}
	e.mu.Unlock()
	if err != nil {
		return res, fmt.Errorf("docdb: allocate index ids: %w", err)
	}
	d, err := e.buildIndexes(ctx, c, newIdx)
	if err != nil {
		return res, err
	}
	// A collection the command created gets an event per index; an
	// existing one, one event for all (change_ddl.go).
	recs, err := e.indexRecords(events.OpCreateIndexes, meta, newIdx, !created)
	if err != nil {
		e.dropIndexData(newIdx)
		return res, err
	}
	if err := e.publishIndexes(c, append(append([]*catalog.IndexMeta(nil), meta.Indexes...), newIdx...), newIdx, d, recs); err != nil {
		e.dropIndexData(newIdx)
		return res, err
	}
	res.NumIndexesAfter = len(c.Meta.Indexes)
	e.indexesAdded(c.Meta, newIdx)
	return res, nil
}

// indexesToBuild returns the requested indexes that meta does not have yet
// (an identical index already there, or requested twice, is built once),
// or the 85/86 conflict with an existing or earlier requested index, or the
// refusal to exceed maxIndexes. createIndexes and its dry run share it.
func indexesToBuild(meta *catalog.CollMeta, reqs []*indexRequest) ([]*indexRequest, error) {
	var build []*indexRequest
next:
	for _, r := range reqs {
		for _, ix := range meta.Indexes {
			exists, err := indexConflict(r, ix.Spec)
			if err != nil {
				return nil, err
			}
			if exists {
				continue next
			}
		}
		for _, b := range build {
			exists, err := indexConflict(r, b.spec)
			if err != nil {
				return nil, err
			}
			if exists {
				continue next
			}
		}
		build = append(build, r)
	}
	if len(build) > 0 && len(meta.Indexes)+len(build) > maxIndexes {
		return nil, mongoerr.Newf(mongoerr.CannotCreateIndex,
			"add index fails, too many indexes for %s.%s key:%s", meta.DB, meta.Name, fmtDoc(build[0].key))
	}
	return build, nil
}

// buildIndexes writes the entries of the new indexes for every document of
// c, whose write lock the caller holds. On failure (a duplicate in a unique
// index, parallel arrays) every entry written is removed again. It returns
// the counter changes to publish with the indexes.
func (e *Engine) buildIndexes(ctx context.Context, c *catalog.Collection, newIdx []*catalog.IndexMeta) (catalog.Delta, error) {
	var d catalog.Delta
	meta := c.Meta
	vis := e.newVisibility(meta)
	b := e.store.NewIndexedBatch()
	defer func() { b.Close() }()
	p := catalog.DocPrefix(meta.ID)
	it, err := e.store.NewIter(p, storage.PrefixEnd(p))
	if err != nil {
		return d, err
	}
	defer it.Close()
	fail := func(err error) (catalog.Delta, error) {
		e.dropIndexData(newIdx)
		return catalog.Delta{}, err
	}
	n := 0
	for ok := it.First(); ok; ok = it.Next() {
		if err := ctx.Err(); err != nil {
			return fail(err)
		}
		sd, err := stored.New(append([]byte(nil), it.Value()...))
		if err != nil {
			return fail(fmt.Errorf("docdb: stored document: %w", err))
		}
		for _, ix := range newIdx {
			keys, mk, err := ix.IndexKeys(sd.Doc)
			if err != nil {
				return fail(buildFailed(meta, err))
			}
			if mk {
				ix.Multikey = true
			}
			for _, k := range keys {
				if ix.Unique {
					if err := e.buildUniqueCheck(b, meta, vis, ix, k, sd); err != nil {
						return fail(buildFailed(meta, err))
					}
				}
				if err := b.Set(catalog.EntryKey(ix.ID, k.Enc, sd.IDEnc), nil); err != nil {
					return fail(err)
				}
				d.AddIndex(ix.ID, 1, int64(9+len(k.Enc)+len(sd.IDEnc)))
			}
		}
		n++
		if n%maxBatchDocs == 0 {
			if err := b.Commit(); err != nil {
				return fail(err)
			}
			b.Close()
			b = e.store.NewIndexedBatch()
			if e.buildBatchHook != nil {
				e.buildBatchHook(n)
			}
		}
	}
	if err := it.Error(); err != nil {
		return fail(err)
	}
	if err := b.Commit(); err != nil {
		return fail(err)
	}
	return d, nil
}

// buildUniqueCheck fails when another document already holds key k in the
// unique index being built; under strict visibility a conflict in which one
// of the two documents is expired is not one.
func (e *Engine) buildUniqueCheck(b *storage.Batch, meta *catalog.CollMeta, vis visibility, ix *catalog.IndexMeta, k catalog.IndexKey, sd *stored.Doc) error {
	prefix := catalog.EntryKey(ix.ID, k.Enc, nil)
	it, err := b.NewIter(prefix, storage.PrefixEnd(prefix))
	if err != nil {
		return err
	}
	defer it.Close()
	for ok := it.First(); ok; ok = it.Next() {
		idEnc := it.Key()[len(prefix):]
		if vis.Hides(sd.Doc) {
			return nil
		}
		v, err := b.Get(catalog.DocKey(meta.ID, idEnc))
		if err != nil {
			return err
		}
		other, err := stored.New(v)
		if err != nil {
			return err
		}
		if vis.Hides(other.Doc) {
			continue
		}
		return dupKeyError(meta, ix, catalog.ToKeyDoc(ix, k.Values))
	}
	return it.Error()
}

// buildFailed wraps an index build failure as mongod reports it, keeping
// the code (and keyPattern/keyValue) of the cause.
func buildFailed(m *catalog.CollMeta, err error) error {
	me, ok := mongoerr.As(err)
	if !ok {
		return err
	}
	uuid := catalog.NewUUID()
	return &mongoerr.Error{
		Code: me.Code,
		Message: fmt.Sprintf("Index build failed: %s: Collection %s.%s ( %s ) :: caused by :: %s",
			uuidString(uuid.Data), m.DB, m.Name, uuidString(m.UUID.Data), me.Message),
		Info: me.Info,
	}
}

// uuidString formats 16 bytes as a canonical UUID.
func uuidString(b []byte) string {
	if len(b) != 16 {
		return fmt.Sprintf("%x", b)
	}
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// dropIndexData deletes every entry of the given indexes of a failed
// build, with their build records. It is best effort: it runs on failure
// paths, entries of an index that is not in the catalog are never read,
// and if the batch does not commit the records make the next Open delete
// the entries.
func (e *Engine) dropIndexData(idx []*catalog.IndexMeta) {
	b := e.store.NewBatch()
	defer b.Close()
	for _, ix := range idx {
		p := catalog.IndexPrefix(ix.ID)
		if err := b.DeleteRange(p, storage.PrefixEnd(p)); err != nil {
			return
		}
	}
	if err := deleteBuildRecords(b, idx); err != nil {
		return
	}
	e.mu.Lock()
	err := b.Commit()
	for _, ix := range idx {
		delete(e.building, ix.ID)
	}
	e.mu.Unlock()
	if err != nil {
		e.opts.Logger.Error("docdb: remove the entries of a failed index build", "err", err)
	}
}

// publishIndexes makes idx the collection's index list: it writes the
// catalog record, the counter changes d, the deletion of the build
// records of built (the indexes just built) and the change-log records
// recs in one batch and swaps the metadata. The caller holds c's write
// lock.
func (e *Engine) publishIndexes(c *catalog.Collection, idx, built []*catalog.IndexMeta, d catalog.Delta, recs [][]byte) error {
	next := c.Meta.WithIndexes(idx)
	b := e.store.NewBatch()
	defer b.Close()
	if err := catalog.PutRecord(b, next); err != nil {
		return err
	}
	if err := deleteBuildRecords(b, built); err != nil {
		return err
	}
	apply, err := c.Stats.Stage(b, next.ID, d)
	if err != nil {
		return err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if err := e.commitLogged(b, recs); err != nil {
		return fmt.Errorf("docdb: publish indexes of %s.%s: %w", next.DB, next.Name, err)
	}
	for _, ix := range built {
		delete(e.building, ix.ID)
	}
	c.Meta = next
	apply()
	return nil
}

func (e *Engine) listIndexes(ctx context.Context, db, coll string) ([]bson.D, error) {
	if err := catalog.CheckReadNS(db, coll); err != nil {
		return nil, err
	}
	e.mu.RLock()
	c := e.cat.Lookup(db, coll)
	var meta *catalog.CollMeta
	if c != nil {
		meta = c.Meta
	}
	e.mu.RUnlock()
	if meta == nil {
		return nil, mongoerr.Newf(mongoerr.NamespaceNotFound, "ns does not exist: %s.%s", db, coll)
	}
	out := make([]bson.D, 0, len(meta.Indexes))
	for _, ix := range meta.Indexes {
		spec := ix.Spec
		if ix.IsID && meta.Clustered() {
			// A clustered collection lists its clustered index.
			// A time-series bucket collection's option is clusteredIndex: true.
			ci, _ := catalog.FieldOf(meta.Options, "clusteredIndex")
			d, ok := ci.(bson.D)
			if !ok {
				d = bson.D{{Key: "v", Value: int32(2)}, {Key: "key", Value: bson.D{{Key: "_id", Value: int32(1)}}},
					{Key: "name", Value: catalog.IDIndexName}, {Key: "unique", Value: true}}
			}
			spec = append(append(bson.D(nil), d...), bson.E{Key: "clustered", Value: true})
		}
		out = append(out, spec)
	}
	return out, nil
}

// errIDIndex is the refusal to drop _id_.
var errIDIndex = mongoerr.New(mongoerr.InvalidOptions, "cannot drop _id index")

func (e *Engine) dropIndexes(ctx context.Context, db, coll string, req DropIndexesRequest) (int, error) {
	if err := catalog.CheckReadNS(db, coll); err != nil {
		return 0, err
	}
	c := e.lockColl(db, coll)
	if c == nil {
		return 0, mongoerr.Newf(mongoerr.NamespaceNotFound, "ns not found %s.%s", db, coll)
	}
	defer c.WriteMu.Unlock()
	meta := c.Meta
	was := len(meta.Indexes)
	drop, err := indexesToDrop(meta, req)
	if err != nil {
		return was, err
	}
	if len(drop) == 0 {
		return was, nil
	}
	gone := map[uint64]bool{}
	for _, ix := range drop {
		gone[ix.ID] = true
	}
	var keep []*catalog.IndexMeta
	for _, ix := range meta.Indexes {
		if !gone[ix.ID] {
			keep = append(keep, ix)
		}
	}
	next := meta.WithIndexes(keep)
	b := e.store.NewBatch()
	defer b.Close()
	var d catalog.Delta
	for _, ix := range drop {
		p := catalog.IndexPrefix(ix.ID)
		if err := b.DeleteRange(p, storage.PrefixEnd(p)); err != nil {
			return was, err
		}
		d.Dropped = append(d.Dropped, ix.ID)
	}
	if err := catalog.PutRecord(b, next); err != nil {
		return was, err
	}
	apply, err := c.Stats.Stage(b, next.ID, d)
	if err != nil {
		return was, err
	}
	recs, err := e.indexRecords(events.OpDropIndexes, meta, drop, false)
	if err != nil {
		return was, err
	}
	e.mu.Lock()
	err = e.commitLogged(b, recs)
	if err == nil {
		c.Meta = next
	}
	e.mu.Unlock()
	if err != nil {
		return was, fmt.Errorf("docdb: drop indexes of %s.%s: %w", db, coll, err)
	}
	apply()
	e.indexesDropped(next, drop)
	return was, nil
}

// indexesToDrop resolves dropIndexes' index argument.
func indexesToDrop(meta *catalog.CollMeta, req DropIndexesRequest) ([]*catalog.IndexMeta, error) {
	switch {
	case req.All:
		var out []*catalog.IndexMeta
		for _, ix := range meta.Indexes {
			if !ix.IsID {
				out = append(out, ix)
			}
		}
		return out, nil
	case req.KeyPattern != nil:
		var found []*catalog.IndexMeta
		for _, ix := range meta.Indexes {
			if catalog.SameDoc(ix.Key, req.KeyPattern) {
				found = append(found, ix)
			}
		}
		switch {
		case len(found) == 0:
			return nil, mongoerr.Newf(mongoerr.IndexNotFound, "can't find index with key: %s", fmtDoc(req.KeyPattern))
		case len(found) > 1:
			return nil, ambiguousKey(meta, req.KeyPattern, found)
		case found[0].IsID:
			return nil, errIDIndex
		}
		return found, nil
	}
	out := make([]*catalog.IndexMeta, 0, len(req.Names))
	for _, name := range req.Names {
		if name == catalog.IDIndexName {
			return nil, errIDIndex
		}
		ix := meta.Index(name)
		if ix == nil {
			return nil, mongoerr.Newf(mongoerr.IndexNotFound, "index not found with name [%s]", name)
		}
		out = append(out, ix)
	}
	return out, nil
}

// ambiguousKey is the error for a key pattern that matches several indexes.
func ambiguousKey(meta *catalog.CollMeta, key bson.D, found []*catalog.IndexMeta) error {
	var specs string
	for i, ix := range found {
		if i > 0 {
			specs += ", "
		}
		specs += fmtDoc(ix.Spec)
	}
	return mongoerr.Newf(mongoerr.AmbiguousIndexKeyPattern,
		"%d indexes found for key: %s, identify by name instead. Conflicting indexes: %s", len(found), fmtDoc(key), specs)
}
