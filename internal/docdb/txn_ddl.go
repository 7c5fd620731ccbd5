package docdb

import (
	"context"
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/catalog"
	"github.com/mayfly/mayfly/internal/docdb/events"
	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
)

// Collections and indexes created inside a transaction.
//
// A collection a transaction creates (create, or an insert or upsert into
// a missing collection) lives in the transaction until it ends: the
// transaction's statements see it at once, nothing outside sees it before
// the commit, and an abort leaves nothing. Its catalog record, its
// indexes and its change-log records are written in the transaction's
// batch at commit; a collection of the same name created outside
// meanwhile makes the commit fail with ErrWriteConflict. Indexes are
// created in a transaction only on a collection it created, while the
// transaction has written no document to it; on any other collection
// createIndexes succeeds only when every index already exists. Capped,
// clustered and time-series collections, and collections an expiry
// policy governs, are not created in a transaction.

// txnCreated returns the collection db.coll the transaction ctx carries
// created, or nil.
func txnCreated(ctx context.Context, db, coll string) *catalog.Collection {
	t := txnOf(ctx)
	if t == nil {
		return nil
	}
	return t.created[catalog.Namespace{DB: db, Coll: coll}]
}

// lookupCollIn is lookupColl as seen from ctx: a collection its
// transaction created comes first.
func (e *Engine) lookupCollIn(ctx context.Context, db, coll string) *catalog.Collection {
	if c := txnCreated(ctx, db, coll); c != nil {
		return c
	}
	return e.lookupColl(db, coll)
}

// lockCollIn is lockColl as seen from ctx.
func (e *Engine) lockCollIn(ctx context.Context, db, coll string) *catalog.Collection {
	if c := txnCreated(ctx, db, coll); c != nil {
		c.WriteMu.Lock()
		return c
	}
	return e.lockColl(db, coll)
}

// lockOrCreateCollIn is lockOrCreateColl as seen from ctx: in a
// transaction a missing collection is created in the transaction.
func (e *Engine) lockOrCreateCollIn(ctx context.Context, db, coll string) (*catalog.Collection, bool, error) {
	t := txnOf(ctx)
	if t == nil {
		return e.lockOrCreateColl(db, coll)
	}
	if err := catalog.CheckWriteNS(db, coll); err != nil {
		return nil, false, err
	}
	if c := e.lockCollIn(ctx, db, coll); c != nil {
		return c, false, nil
	}
	c, err := t.createColl(db, coll, nil)
	if err != nil {
		return nil, false, err
	}
	c.WriteMu.Lock()
	return c, true, nil
}

// createCollIn is create in the transaction t: NamespaceExists when db.coll
// exists, in the transaction or outside.
func (t *Txn) createCollIn(db, coll string, req CreateCollectionRequest) error {
	if err := catalog.CheckCreateNS(db, coll); err != nil {
		return err
	}
	if req.Capped != nil || req.Clustered || req.Timeseries != nil {
		return mongoerr.Newf(mongoerr.OperationNotSupportedInTransaction,
			"Cannot create a capped, clustered or time-series collection %s.%s in a multi-document transaction.", db, coll)
	}
	options, err := req.options()
	if err != nil {
		return err
	}
	if t.created[catalog.Namespace{DB: db, Coll: coll}] != nil || t.e.lookupColl(db, coll) != nil {
		return mongoerr.Newf(mongoerr.NamespaceExists, "Collection %s.%s already exists.", db, coll)
	}
	_, err = t.createColl(db, coll, options)
	return err
}

// createColl creates db.coll, which exists neither in t nor outside, in t.
// Its ids are allocated (and the counter committed) at once: an aborted
// transaction only leaves them unused.
func (t *Txn) createColl(db, coll string, options bson.D) (*catalog.Collection, error) {
	if t.done {
		return nil, ErrTxnDone
	}
	e := t.e
	if e.timeseriesOf(db, coll) != nil {
		return nil, mongoerr.Newf(mongoerr.NamespaceExists, "Collection %s.%s already exists.", db, coll)
	}
	if e.pol.RuleFor(coll) != nil {
		return nil, mongoerr.Newf(mongoerr.OperationNotSupportedInTransaction,
			"Cannot create collection %s.%s, governed by an expiry policy, in a multi-document transaction.", db, coll)
	}
	if options == nil {
		options = bson.D{}
	}
	val, err := catalog.ParseValidationOptions(options)
	if err != nil {
		return nil, err
	}
	ids, err := e.allocIDs(2)
	if err != nil {
		return nil, fmt.Errorf("docdb: create %s.%s in a transaction: %w", db, coll, err)
	}
	meta, err := newCollMeta(db, coll, options, val, ids[0], ids[1])
	if err != nil {
		return nil, err
	}
	c := &catalog.Collection{Meta: meta, Stats: catalog.NewCounters()}
	if t.created == nil {
		t.created = map[catalog.Namespace]*catalog.Collection{}
	}
	ns := catalog.Namespace{DB: db, Coll: coll}
	t.created[ns] = c
	t.createdOrder = append(t.createdOrder, ns)
	return c, nil
}

// allocIDs allocates n catalog ids and commits the counter.
func (e *Engine) allocIDs(n int) ([]uint64, error) {
	b := e.store.NewBatch()
	defer b.Close()
	e.mu.Lock()
	defer e.mu.Unlock()
	out := make([]uint64, n)
	for i := range out {
		id, err := e.cat.AllocID(b)
		if err != nil {
			return nil, err
		}
		out[i] = id
	}
	if err := b.Commit(); err != nil {
		return nil, err
	}
	return out, nil
}

// createIndexesIn is createIndexes in the transaction t on c, whose
// write lock the caller holds; build are the indexes c does not have yet.
func (t *Txn) createIndexesIn(c *catalog.Collection, created bool, build []*indexRequest, res CreateIndexesResult) (CreateIndexesResult, error) {
	meta := c.Meta
	ns := catalog.Namespace{DB: meta.DB, Coll: meta.Name}
	if t.created[ns] != c {
		return res, mongoerr.Newf(mongoerr.OperationNotSupportedInTransaction,
			"Cannot create new indexes on existing collection %s.%s in a multi-document transaction.", meta.DB, meta.Name)
	}
	if t.wroteTo(meta.ID) {
		return res, mongoerr.Newf(mongoerr.OperationNotSupportedInTransaction,
			"Cannot create new indexes on non-empty collection %s.%s in a multi-document transaction.", meta.DB, meta.Name)
	}
	ids, err := t.e.allocIDs(len(build))
	if err != nil {
		return res, fmt.Errorf("docdb: create indexes on %s.%s in a transaction: %w", meta.DB, meta.Name, err)
	}
	idx := append([]*catalog.IndexMeta(nil), meta.Indexes...)
	for i, r := range build {
		ix, err := catalog.IndexFromSpec(ids[i], r.spec)
		if err != nil {
			return res, err
		}
		ix.Ready = true
		idx = append(idx, ix)
	}
	c.Meta = meta.WithIndexes(idx)
	res.CreatedCollectionAutomatically = created
	res.NumIndexesAfter = len(c.Meta.Indexes)
	return res, nil
}

// wroteTo reports whether t wrote a document of collection id.
func (t *Txn) wroteTo(id uint64) bool {
	p := string(catalog.DocPrefix(id))
	for k := range t.written {
		if len(k) >= len(p) && k[:len(p)] == p {
			return true
		}
	}
	return false
}

// stageCreated checks, under ddl, that no collection t created was
// created outside meanwhile, and writes their catalog records into t's
// batch; it returns their change-log records (a create, then one per
// index built on it), which come before the transaction's own.
func (t *Txn) stageCreated() ([][]byte, error) {
	var recs [][]byte
	for _, ns := range t.createdOrder {
		c := t.created[ns]
		if t.e.lookupColl(ns.DB, ns.Coll) != nil || t.e.timeseriesOf(ns.DB, ns.Coll) != nil {
			return nil, ErrWriteConflict
		}
		meta := c.Meta
		if err := catalog.PutRecord(t.b, meta); err != nil {
			return nil, err
		}
		if t.e.events == nil {
			continue
		}
		rec, err := catalogRecord(events.OpCreate, ns.DB, meta, "", "", nil)
		if err != nil {
			return nil, err
		}
		recs = append(recs, rec)
		var built []*catalog.IndexMeta
		for _, ix := range meta.Indexes {
			if !ix.IsID {
				built = append(built, ix)
			}
		}
		irecs, err := t.e.indexRecords(events.OpCreateIndexes, meta, built, false)
		if err != nil {
			return nil, err
		}
		recs = append(recs, irecs...)
	}
	return recs, nil
}

// publishCreated makes the collections t created part of the catalog; the
// caller holds Engine.mu and has committed their records.
func (t *Txn) publishCreated() {
	for _, ns := range t.createdOrder {
		t.e.cat.Colls[ns] = t.created[ns]
	}
}

// registerCreated registers the expiry sources of the collections t
// created; the caller holds no engine lock.
func (t *Txn) registerCreated() {
	for _, ns := range t.createdOrder {
		m := t.created[ns].Meta
		t.e.indexesAdded(m, m.Indexes)
	}
}
