package docdb

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/catalog"
	"github.com/mayfly/mayfly/internal/docdb/collation"
	"github.com/mayfly/mayfly/internal/docdb/events"
	"github.com/mayfly/mayfly/internal/docdb/match"
	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
	"github.com/mayfly/mayfly/internal/storage"
)

// Collections: create, drop, dropDatabase, rename and the listings.
//
// Lock order: Engine.ddl, then collection write locks (at most two, only
// under ddl), then Engine.mu.

// lockColl returns the live collection db.coll with its write lock held, or
// nil when it does not exist.
func (e *Engine) lockColl(db, coll string) *catalog.Collection {
	for {
		e.mu.RLock()
		c := e.cat.Lookup(db, coll)
		e.mu.RUnlock()
		if c == nil {
			return nil
		}
		c.WriteMu.Lock()
		if !c.Dropped && c.Meta.DB == db && c.Meta.Name == coll {
			return c
		}
		c.WriteMu.Unlock()
	}
}

// lockOrCreateColl returns db.coll with its write lock held, creating it
// (implicitly, with no options) when missing. created reports that it did.
func (e *Engine) lockOrCreateColl(db, coll string) (c *catalog.Collection, created bool, err error) {
	if err := catalog.CheckWriteNS(db, coll); err != nil {
		return nil, false, err
	}
	for {
		if c := e.lockColl(db, coll); c != nil {
			return c, created, nil
		}
		e.ddl.Lock()
		if e.lookupColl(db, coll) == nil {
			_, err = e.createLocked(db, coll, nil)
			created = err == nil
		}
		e.ddl.Unlock()
		if err != nil {
			return nil, false, err
		}
	}
}

// lookupColl returns the collection db.coll or nil.
func (e *Engine) lookupColl(db, coll string) *catalog.Collection {
	e.mu.RLock()
	defer e.mu.RUnlock()
	return e.cat.Lookup(db, coll)
}

// createLocked creates db.coll with parsed options. The caller holds ddl
// and has checked that the collection does not exist.
func (e *Engine) createLocked(db, coll string, options bson.D) (*catalog.Collection, error) {
	if options == nil {
		options = bson.D{}
	}
	val, err := catalog.ParseValidationOptions(options)
	if err != nil {
		return nil, err
	}
	b := e.store.NewBatch()
	defer b.Close()
	e.mu.Lock()
	defer e.mu.Unlock()
	id, err := e.cat.AllocID(b)
	if err != nil {
		return nil, err
	}
	idxID, err := e.cat.AllocID(b)
	if err != nil {
		return nil, err
	}
	meta, err := newCollMeta(db, coll, options, val, id, idxID)
	if err != nil {
		return nil, err
	}
	if err := catalog.PutRecord(b, meta); err != nil {
		return nil, err
	}
	if err := markSpans(b, meta); err != nil {
		return nil, err
	}
	publishPolicy, err := e.pol.IndexForNew(b, meta)
	if err != nil {
		return nil, err
	}
	if err := e.logCatalog(b, events.OpCreate, db, meta, "", ""); err != nil {
		return nil, fmt.Errorf("docdb: create collection %s.%s: %w", db, coll, err)
	}
	publishPolicy()
	c := &catalog.Collection{Meta: meta, Stats: catalog.NewCounters()}
	e.cat.Colls[catalog.Namespace{DB: db, Coll: coll}] = c
	return c, nil
}

// newCollMeta returns the metadata of a new collection db.coll: id is its
// own, idxID its _id index's.
func newCollMeta(db, coll string, options bson.D, val *catalog.Validation, id, idxID uint64) (*catalog.CollMeta, error) {
	meta := &catalog.CollMeta{DB: db, Name: coll, ID: id, UUID: catalog.NewUUID(), Options: options, Validation: val}
	idIdx, err := catalog.IndexFromSpec(idxID, catalog.IDIndexSpec())
	if err != nil {
		return nil, err
	}
	idIdx.Ready = true
	meta.Indexes = []*catalog.IndexMeta{idIdx}
	return meta, nil
}

func (e *Engine) createCollection(ctx context.Context, db, coll string, req CreateCollectionRequest) error {
	if err := catalog.CheckCreateNS(db, coll); err != nil {
		return err
	}
	options, err := req.options()
	if err != nil {
		return err
	}
	e.ddl.Lock()
	defer e.ddl.Unlock()
	if old := e.lookupColl(db, coll); old != nil {
		if sameOptions(old.Meta.Options, options) {
			return nil
		}
		return &CollectionExistsError{DB: db, Coll: coll, UUID: old.Meta.UUID, Options: old.Meta.Options}
	}
	if e.timeseriesOf(db, coll) != nil {
		return mongoerr.Newf(mongoerr.NamespaceExists, "Collection %s.%s already exists.", db, coll)
	}
	c, err := e.createLocked(db, coll, options)
	if err != nil {
		return err
	}
	e.registerClustered(c.Meta)
	return nil
}

// options returns the collection options to store (and report in
// listCollections). A default collation is stored with every field, as
// MongoDB reports it; {locale: "simple"} is stored as none.
func (r CreateCollectionRequest) options() (bson.D, error) {
	out := r.Validation.appendTo(r.cappedOptions())
	if r.Collation != nil {
		c, err := collation.Parse(r.Collation)
		if err != nil {
			return nil, err
		}
		if c != nil {
			out = append(out, bson.E{Key: "collation", Value: c.Full()})
		}
	}
	if r.Clustered {
		name := r.ClusteredIndexName
		if name == "" {
			name = catalog.IDIndexName
		}
		out = append(out, bson.E{Key: "clusteredIndex", Value: bson.D{
			{Key: "v", Value: int32(2)},
			{Key: "key", Value: bson.D{{Key: "_id", Value: int32(1)}}},
			{Key: "name", Value: name},
			{Key: "unique", Value: true},
		}})
	}
	if r.ExpireAfterSeconds != nil {
		out = append(out, bson.E{Key: "expireAfterSeconds", Value: *r.ExpireAfterSeconds})
	}
	if r.PreAndPostImages != nil && *r.PreAndPostImages {
		out = append(out, bson.E{Key: "changeStreamPreAndPostImages", Value: bson.D{{Key: "enabled", Value: true}}})
	}
	return out, nil
}

func (e *Engine) dropCollection(ctx context.Context, db, coll string) (bool, error) {
	if err := catalog.CheckReadNS(db, coll); err != nil {
		return false, err
	}
	e.ddl.Lock()
	defer e.ddl.Unlock()
	c := e.lockColl(db, coll)
	if c == nil {
		return false, nil
	}
	defer c.WriteMu.Unlock()
	b := e.store.NewBatch()
	defer b.Close()
	if err := dropCollectionData(b, c.Meta, true); err != nil {
		return false, err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if err := e.logCatalog(b, events.OpDrop, db, c.Meta, "", ""); err != nil {
		return false, fmt.Errorf("docdb: drop %s.%s: %w", db, coll, err)
	}
	delete(e.cat.Colls, catalog.Namespace{DB: db, Coll: coll})
	c.Dropped = true
	e.collectionGone(c.Meta)
	return true, nil
}

// dropCollectionData writes into b the deletion of every document, index
// entry and counter of the collection, and of its catalog record when
// record is set.
func dropCollectionData(b *storage.Batch, m *catalog.CollMeta, record bool) error {
	p := catalog.DocPrefix(m.ID)
	if err := b.DeleteRange(p, storage.PrefixEnd(p)); err != nil {
		return err
	}
	for _, ix := range m.Indexes {
		if ix.IsID {
			continue
		}
		p := catalog.IndexPrefix(ix.ID)
		if err := b.DeleteRange(p, storage.PrefixEnd(p)); err != nil {
			return err
		}
	}
	if err := dropNatural(b, m); err != nil {
		return err
	}
	if err := b.Delete(catalog.StatsKey(m.ID)); err != nil {
		return err
	}
	if err := dropSpans(b, m); err != nil {
		return err
	}
	if record {
		return b.Delete(catalog.CollKey(m.DB, m.Name))
	}
	return nil
}

func (e *Engine) dropDatabase(ctx context.Context, db string) error {
	if err := catalog.CheckDB(db); err != nil {
		return err
	}
	e.ddl.Lock()
	defer e.ddl.Unlock()
	e.mu.RLock()
	colls := e.cat.DBCollections(db)
	e.mu.RUnlock()
	for _, c := range colls {
		name := c.Meta.Name
		c := e.lockColl(db, name)
		if c == nil {
			continue
		}
		b := e.store.NewBatch()
		err := dropCollectionData(b, c.Meta, true)
		if err == nil {
			e.mu.Lock()
			err = e.logCatalog(b, events.OpDrop, db, c.Meta, "", "")
			if err == nil {
				delete(e.cat.Colls, catalog.Namespace{DB: db, Coll: name})
				c.Dropped = true
				e.collectionGone(c.Meta)
			}
			e.mu.Unlock()
		}
		b.Close()
		c.WriteMu.Unlock()
		if err != nil {
			return fmt.Errorf("docdb: drop database %s: %w", db, err)
		}
	}
	if len(colls) > 0 {
		b := e.store.NewBatch()
		defer b.Close()
		if err := e.logCatalog(b, events.OpDropDatabase, db, nil, "", ""); err != nil {
			return fmt.Errorf("docdb: drop database %s: %w", db, err)
		}
	}
	return nil
}

func (e *Engine) listDatabases(ctx context.Context) ([]DatabaseInfo, error) {
	e.mu.RLock()
	defer e.mu.RUnlock()
	var out []DatabaseInfo
	for _, db := range e.cat.Databases() {
		info := DatabaseInfo{Name: db, Empty: true}
		for _, c := range e.cat.DBCollections(db) {
			docs, bytes, idx := c.Stats.Snapshot()
			info.SizeOnDisk += bytes + indexBytes(idx) + collectionOverhead
			if docs > 0 {
				info.Empty = false
			}
		}
		out = append(out, info)
	}
	return out, nil
}

// collectionOverhead is the fixed size estimate of an empty collection and
// its _id index, so that a database with empty collections is not 0 bytes
// (MongoDB reports a few KiB per file).
const collectionOverhead = 8192

func indexBytes(idx map[uint64]catalog.IndexCounter) int64 {
	var n int64
	for _, ic := range idx {
		n += ic.Bytes
	}
	return n
}

func (e *Engine) listCollections(ctx context.Context, db string, f bson.D, nameOnly bool) ([]bson.D, error) {
	if err := catalog.CheckDB(db); err != nil {
		return nil, err
	}
	var flt *match.Filter
	if len(f) > 0 {
		var err error
		if flt, err = match.ParseQuery(f, match.Env{Now: e.opts.Now()}); err != nil {
			return nil, err
		}
	}
	e.mu.RLock()
	colls := e.cat.DBCollections(db)
	metas := make([]*catalog.CollMeta, len(colls))
	for i, c := range colls {
		metas[i] = c.Meta
	}
	e.mu.RUnlock()
	var out []bson.D
	for _, m := range metas {
		entries := []bson.D{collectionEntry(m, nameOnly)}
		if o, ok := timeseriesOptions(m); ok && strings.HasPrefix(m.Name, BucketsPrefix) {
			entries = append(entries, timeseriesEntry(m, o, nameOnly))
		}
		for _, entry := range entries {
			if flt == nil || flt.Matches(entry) {
				out = append(out, entry)
			}
		}
	}
	slices.SortStableFunc(out, func(a, b bson.D) int { return strings.Compare(a[0].Value.(string), b[0].Value.(string)) })
	return out, nil
}

// collectionEntry builds m's listCollections document.
func collectionEntry(m *catalog.CollMeta, nameOnly bool) bson.D {
	if nameOnly {
		return bson.D{{Key: "name", Value: m.Name}, {Key: "type", Value: "collection"}}
	}
	d := bson.D{
		{Key: "name", Value: m.Name},
		{Key: "type", Value: "collection"},
		{Key: "options", Value: m.Options},
		{Key: "info", Value: bson.D{{Key: "readOnly", Value: false}, {Key: "uuid", Value: m.UUID}}},
	}
	if !m.Clustered() {
		d = append(d, bson.E{Key: "idIndex", Value: catalog.IDIndexSpec()})
	}
	return d
}

func (e *Engine) renameCollection(ctx context.Context, fromDB, fromColl, toDB, toColl string, dropTarget bool) error {
	if err := catalog.CheckReadNS(fromDB, fromColl); err != nil {
		return mongoerr.Newf(mongoerr.InvalidNamespace, "Invalid namespace specified '%s.%s'", fromDB, fromColl)
	}
	if err := catalog.CheckCreateNS(toDB, toColl); err != nil {
		return mongoerr.Newf(mongoerr.InvalidNamespace, "Invalid target namespace: %s.%s", toDB, toColl)
	}
	if fromDB == toDB && fromColl == toColl {
		return mongoerr.New(mongoerr.IllegalOperation, "Can't rename a collection to itself")
	}
	e.ddl.Lock()
	defer e.ddl.Unlock()
	src := e.lockColl(fromDB, fromColl)
	if src == nil {
		return mongoerr.Newf(mongoerr.NamespaceNotFound, "Source collection %s.%s does not exist", fromDB, fromColl)
	}
	defer src.WriteMu.Unlock()
	b := e.store.NewBatch()
	defer b.Close()
	dst := e.lockColl(toDB, toColl)
	if dst != nil {
		defer dst.WriteMu.Unlock()
		if !dropTarget {
			return mongoerr.New(mongoerr.NamespaceExists, "target namespace exists")
		}
		if err := dropCollectionData(b, dst.Meta, true); err != nil {
			return err
		}
	}
	old := src.Meta
	nm := *old
	nm.DB, nm.Name = toDB, toColl
	if err := b.Delete(catalog.CollKey(old.DB, old.Name)); err != nil {
		return err
	}
	if err := catalog.PutRecord(b, &nm); err != nil {
		return err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	var before [][]byte
	if dst != nil {
		rec, err := catalogRecord(events.OpDrop, toDB, dst.Meta, "", "", nil)
		if err != nil {
			return err
		}
		if e.events != nil {
			if err := e.events.CollectionDropped(b, dst.Meta); err != nil {
				return err
			}
		}
		before = append(before, rec)
	}
	var dropped *catalog.CollMeta
	if dst != nil {
		dropped = dst.Meta
	}
	if err := e.logCatalogAfter(b, before, events.OpRename, fromDB, old, toDB, toColl, dropped); err != nil {
		return fmt.Errorf("docdb: rename %s.%s: %w", fromDB, fromColl, err)
	}
	if dst != nil {
		delete(e.cat.Colls, catalog.Namespace{DB: toDB, Coll: toColl})
		dst.Dropped = true
		e.collectionGone(dst.Meta)
	}
	delete(e.cat.Colls, catalog.Namespace{DB: fromDB, Coll: fromColl})
	src.Meta = &nm
	e.cat.Colls[catalog.Namespace{DB: toDB, Coll: toColl}] = src
	e.collectionRenamed(old, &nm)
	return nil
}
