package docdb

import (
	"context"
	"fmt"
	"math"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
	"github.com/mayfly/mayfly/internal/storage"
)

// Collections: create, drop, dropDatabase, rename and the listings.
//
// Lock order: Engine.ddl, then collection write locks (at most two, only
// under ddl), then Engine.mu.

// lockColl returns the live collection db.coll with its write lock held, or
// nil when it does not exist.
func (e *Engine) lockColl(db, coll string) *collection {
	for {
		e.mu.RLock()
		c := e.cat.lookup(db, coll)
		e.mu.RUnlock()
		if c == nil {
			return nil
		}
		c.wmu.Lock()
		if !c.dropped && c.meta.db == db && c.meta.name == coll {
			return c
		}
		c.wmu.Unlock()
	}
}

// lockOrCreateColl returns db.coll with its write lock held, creating it
// (implicitly, with no options) when missing. created reports that it did.
func (e *Engine) lockOrCreateColl(db, coll string) (c *collection, created bool, err error) {
	if err := checkWriteNS(db, coll); err != nil {
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
func (e *Engine) lookupColl(db, coll string) *collection {
	e.mu.RLock()
	defer e.mu.RUnlock()
	return e.cat.lookup(db, coll)
}

// createLocked creates db.coll with parsed options. The caller holds ddl
// and has checked that the collection does not exist.
func (e *Engine) createLocked(db, coll string, options bson.D) (*collection, error) {
	if options == nil {
		options = bson.D{}
	}
	val, err := parseValidationOptions(options)
	if err != nil {
		return nil, err
	}
	b := e.store.NewBatch()
	defer b.Close()
	e.mu.Lock()
	defer e.mu.Unlock()
	id, err := e.cat.allocID(b)
	if err != nil {
		return nil, err
	}
	idxID, err := e.cat.allocID(b)
	if err != nil {
		return nil, err
	}
	meta := &collMeta{db: db, name: coll, id: id, uuid: newUUID(), options: options, validation: val}
	idIdx, err := indexFromSpec(idxID, idIndexSpec())
	if err != nil {
		return nil, err
	}
	idIdx.ready = true
	meta.indexes = []*indexMeta{idIdx}
	if err := putRecord(b, meta); err != nil {
		return nil, err
	}
	publishPolicy, err := e.policyIndexForNew(b, meta)
	if err != nil {
		return nil, err
	}
	if err := b.Commit(); err != nil {
		return nil, fmt.Errorf("docdb: create collection %s.%s: %w", db, coll, err)
	}
	publishPolicy()
	c := &collection{meta: meta, stats: newCounters()}
	e.cat.colls[nsKey{db, coll}] = c
	return c, nil
}

func (e *Engine) createCollection(ctx context.Context, db, coll string, opts bson.D) error {
	if err := checkCreateNS(db, coll); err != nil {
		return err
	}
	options, err := parseCreateOptions(opts)
	if err != nil {
		return err
	}
	e.ddl.Lock()
	defer e.ddl.Unlock()
	if e.lookupColl(db, coll) != nil {
		return mongoerr.Newf(mongoerr.NamespaceExists, "Collection %s.%s already exists.", db, coll)
	}
	c, err := e.createLocked(db, coll, options)
	if err != nil {
		return err
	}
	e.registerClustered(c.meta)
	return nil
}

// parseCreateOptions validates the create command's fields and returns the
// options to store (and report in listCollections).
func parseCreateOptions(opts bson.D) (bson.D, error) {
	out := bson.D{}
	var clustered, expire bool
	for i, el := range opts {
		if i == 0 && el.Key == "create" {
			continue
		}
		if genericFields[el.Key] {
			continue
		}
		switch el.Key {
		case "validator", "validationLevel", "validationAction", "collation":
			out = append(out, el)
		case "capped":
			if truthy(el.Value) {
				return nil, mongoerr.New(mongoerr.NotImplemented, "capped collections are not supported")
			}
		case "size", "max", "autoIndexId", "idIndex", "storageEngine", "indexOptionDefaults", "flags",
			"recordPreImages", "changeStreamPreAndPostImages", "temp":
			// Accepted and ignored: they only tune storage.
		case "timeseries":
			return nil, mongoerr.New(mongoerr.NotImplemented, "time-series collections are not supported")
		case "viewOn", "pipeline":
			return nil, mongoerr.New(mongoerr.NotImplemented, "views are not supported")
		case "encryptedFields":
			return nil, mongoerr.New(mongoerr.NotImplemented, "queryable encryption is not supported")
		case "clusteredIndex":
			ci, err := parseClusteredIndex(el.Value)
			if err != nil {
				return nil, err
			}
			clustered = true
			out = append(out, bson.E{Key: "clusteredIndex", Value: ci})
		case "expireAfterSeconds":
			n, err := collectionExpireAfter(el.Value)
			if err != nil {
				return nil, err
			}
			expire = true
			out = append(out, bson.E{Key: "expireAfterSeconds", Value: n})
		default:
			return nil, mongoerr.Newf(mongoerr.IDLUnknownField, "BSON field 'create.%s' is an unknown field.", el.Key)
		}
	}
	if expire && !clustered {
		return nil, mongoerr.New(mongoerr.InvalidOptions,
			"'expireAfterSeconds' is only supported on clustered and time-series collections")
	}
	if _, err := parseValidationOptions(out); err != nil {
		return nil, err
	}
	return out, nil
}

// parseClusteredIndex validates the clusteredIndex create option and
// returns it as listCollections reports it.
func parseClusteredIndex(v any) (bson.D, error) {
	name := idIndexName
	switch x := v.(type) {
	case bool:
		if !x {
			return nil, mongoerr.New(mongoerr.BadValue, "clusteredIndex: false is not supported")
		}
	case bson.D:
		var key bson.D
		unique := false
		for _, e := range x {
			switch e.Key {
			case "key":
				key, _ = e.Value.(bson.D)
			case "unique":
				unique = truthy(e.Value)
			case "name":
				s, ok := e.Value.(string)
				if !ok {
					return nil, mongoerr.Newf(mongoerr.TypeMismatch,
						"BSON field 'clusteredIndex.name' is the wrong type '%s', expected type 'string'", typeName(e.Value))
				}
				name = s
			case "v":
			default:
				return nil, mongoerr.Newf(mongoerr.IDLUnknownField, "BSON field 'clusteredIndex.%s' is an unknown field.", e.Key)
			}
		}
		if len(key) != 1 || key[0].Key != "_id" || keyDirection(key[0].Value) != 1 {
			return nil, mongoerr.New(mongoerr.InvalidIndexSpecificationOption,
				"The clusteredIndex option is only supported for key: {_id: 1}")
		}
		if !unique {
			return nil, mongoerr.New(mongoerr.InvalidIndexSpecificationOption,
				"The clusteredIndex option requires unique: true")
		}
	default:
		return nil, mongoerr.Newf(mongoerr.TypeMismatch,
			"BSON field 'clusteredIndex' is the wrong type '%s', expected types '[bool, object]'", typeName(v))
	}
	return bson.D{
		{Key: "v", Value: int32(2)},
		{Key: "key", Value: bson.D{{Key: "_id", Value: int32(1)}}},
		{Key: "name", Value: name},
		{Key: "unique", Value: true},
	}, nil
}

// collectionExpireAfter validates a collection-level expireAfterSeconds.
func collectionExpireAfter(v any) (int64, error) {
	if !isNumber(v) {
		return 0, mongoerr.Newf(mongoerr.TypeMismatch,
			"BSON field 'expireAfterSeconds' is the wrong type '%s', expected types '[long, int, decimal, double]'", typeName(v))
	}
	f, _ := toFloat(v)
	if math.IsNaN(f) || f < 0 {
		return 0, mongoerr.New(mongoerr.InvalidOptions, "TTL index 'expireAfterSeconds' option cannot be less than 0")
	}
	if f > math.MaxInt64/1000 {
		return 0, mongoerr.Newf(mongoerr.InvalidOptions,
			"TTL index 'expireAfterSeconds' option cannot overflow int64_t when cast as milliseconds, found %v", v)
	}
	return int64(f), nil
}

// toFloat converts a BSON number to float64.
func toFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case int32:
		return float64(x), true
	case int64:
		return float64(x), true
	case int:
		return float64(x), true
	case float64:
		return x, true
	case bson.Decimal128:
		f, err := decimalToFloat(x)
		return f, err == nil
	}
	return 0, false
}

func (e *Engine) dropCollection(ctx context.Context, db, coll string) (bool, error) {
	if err := checkReadNS(db, coll); err != nil {
		return false, err
	}
	e.ddl.Lock()
	defer e.ddl.Unlock()
	c := e.lockColl(db, coll)
	if c == nil {
		return false, nil
	}
	defer c.wmu.Unlock()
	b := e.store.NewBatch()
	defer b.Close()
	if err := dropCollectionData(b, c.meta, true); err != nil {
		return false, err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if err := b.Commit(); err != nil {
		return false, fmt.Errorf("docdb: drop %s.%s: %w", db, coll, err)
	}
	delete(e.cat.colls, nsKey{db, coll})
	c.dropped = true
	e.collectionGone(c.meta)
	return true, nil
}

// dropCollectionData writes into b the deletion of every document, index
// entry and counter of the collection, and of its catalog record when
// record is set.
func dropCollectionData(b *storage.Batch, m *collMeta, record bool) error {
	p := docPrefix(m.id)
	if err := b.DeleteRange(p, storage.PrefixEnd(p)); err != nil {
		return err
	}
	for _, ix := range m.indexes {
		if ix.isID {
			continue
		}
		p := indexPrefix(ix.id)
		if err := b.DeleteRange(p, storage.PrefixEnd(p)); err != nil {
			return err
		}
	}
	if err := b.Delete(statsKey(m.id)); err != nil {
		return err
	}
	if record {
		return b.Delete(collKey(m.db, m.name))
	}
	return nil
}

func (e *Engine) dropDatabase(ctx context.Context, db string) error {
	if err := checkDB(db); err != nil {
		return err
	}
	e.ddl.Lock()
	defer e.ddl.Unlock()
	e.mu.RLock()
	colls := e.cat.dbCollections(db)
	e.mu.RUnlock()
	for _, c := range colls {
		name := c.meta.name
		c := e.lockColl(db, name)
		if c == nil {
			continue
		}
		b := e.store.NewBatch()
		err := dropCollectionData(b, c.meta, true)
		if err == nil {
			e.mu.Lock()
			err = b.Commit()
			if err == nil {
				delete(e.cat.colls, nsKey{db, name})
				c.dropped = true
				e.collectionGone(c.meta)
			}
			e.mu.Unlock()
		}
		b.Close()
		c.wmu.Unlock()
		if err != nil {
			return fmt.Errorf("docdb: drop database %s: %w", db, err)
		}
	}
	return nil
}

func (e *Engine) listDatabases(ctx context.Context) ([]DatabaseInfo, error) {
	e.mu.RLock()
	defer e.mu.RUnlock()
	var out []DatabaseInfo
	for _, db := range e.cat.databases() {
		info := DatabaseInfo{Name: db, Empty: true}
		for _, c := range e.cat.dbCollections(db) {
			docs, bytes, idx := c.stats.snapshot()
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

func indexBytes(idx map[uint64]indexCounter) int64 {
	var n int64
	for _, ic := range idx {
		n += ic.bytes
	}
	return n
}

func (e *Engine) listCollections(ctx context.Context, db string, f bson.D, nameOnly bool) ([]bson.D, error) {
	if err := checkDB(db); err != nil {
		return nil, err
	}
	var flt *filter
	if len(f) > 0 {
		var err error
		if flt, err = parseQuery(f, exprEnv{now: e.opts.Now()}); err != nil {
			return nil, err
		}
	}
	e.mu.RLock()
	colls := e.cat.dbCollections(db)
	metas := make([]*collMeta, len(colls))
	for i, c := range colls {
		metas[i] = c.meta
	}
	e.mu.RUnlock()
	var out []bson.D
	for _, m := range metas {
		entry := collectionEntry(m, nameOnly)
		if flt != nil && !flt.matches(entry) {
			continue
		}
		out = append(out, entry)
	}
	return out, nil
}

// collectionEntry builds m's listCollections document.
func collectionEntry(m *collMeta, nameOnly bool) bson.D {
	if nameOnly {
		return bson.D{{Key: "name", Value: m.name}, {Key: "type", Value: "collection"}}
	}
	d := bson.D{
		{Key: "name", Value: m.name},
		{Key: "type", Value: "collection"},
		{Key: "options", Value: m.options},
		{Key: "info", Value: bson.D{{Key: "readOnly", Value: false}, {Key: "uuid", Value: m.uuid}}},
	}
	if !m.clustered() {
		d = append(d, bson.E{Key: "idIndex", Value: idIndexSpec()})
	}
	return d
}

// clustered reports whether the collection was created with clusteredIndex.
func (m *collMeta) clustered() bool {
	for _, e := range m.options {
		if e.Key == "clusteredIndex" {
			return true
		}
	}
	return false
}

func (e *Engine) renameCollection(ctx context.Context, fromDB, fromColl, toDB, toColl string, dropTarget bool) error {
	if err := checkReadNS(fromDB, fromColl); err != nil {
		return mongoerr.Newf(mongoerr.InvalidNamespace, "Invalid namespace specified '%s.%s'", fromDB, fromColl)
	}
	if err := checkCreateNS(toDB, toColl); err != nil {
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
	defer src.wmu.Unlock()
	b := e.store.NewBatch()
	defer b.Close()
	dst := e.lockColl(toDB, toColl)
	if dst != nil {
		defer dst.wmu.Unlock()
		if !dropTarget {
			return mongoerr.New(mongoerr.NamespaceExists, "target namespace exists")
		}
		if err := dropCollectionData(b, dst.meta, true); err != nil {
			return err
		}
	}
	old := src.meta
	nm := *old
	nm.db, nm.name = toDB, toColl
	if err := b.Delete(collKey(old.db, old.name)); err != nil {
		return err
	}
	if err := putRecord(b, &nm); err != nil {
		return err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if err := b.Commit(); err != nil {
		return fmt.Errorf("docdb: rename %s.%s: %w", fromDB, fromColl, err)
	}
	if dst != nil {
		delete(e.cat.colls, nsKey{toDB, toColl})
		dst.dropped = true
		e.collectionGone(dst.meta)
	}
	delete(e.cat.colls, nsKey{fromDB, fromColl})
	src.meta = &nm
	e.cat.colls[nsKey{toDB, toColl}] = src
	e.collectionRenamed(old, &nm)
	return nil
}
