package docdb

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/aggregate"
	"github.com/mayfly/mayfly/internal/docdb/catalog"
	"github.com/mayfly/mayfly/internal/docdb/match"
	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
	"github.com/mayfly/mayfly/internal/docdb/query"
	"github.com/mayfly/mayfly/internal/docdb/stored"
	"github.com/mayfly/mayfly/internal/docdb/timeseries"
	"github.com/mayfly/mayfly/internal/docdb/update"
	"github.com/mayfly/mayfly/internal/keycodec"
	"github.com/mayfly/mayfly/internal/storage"
)

// Time-series collections. A time-series collection db.c is the clustered
// collection db.system.buckets.c, created with the option timeseries (the
// bucketing rules are in internal/docdb/timeseries); the catalog holds no
// record of db.c itself. Every Engine method given db.c while
// db.system.buckets.c is a time-series bucket collection works on the
// measurements: inserts add them to buckets, reads unpack the buckets their
// filter's time and meta predicates allow, deletes filtered on the
// metaField remove whole buckets.
//
// Strict visibility hides a measurement once its time + expireAfterSeconds
// is at or before now, although its bucket is only deleted once the
// bucket's start is older than now - expireAfterSeconds -
// bucketMaxSpanSeconds (as MongoDB deletes it).

// BucketsPrefix is the name prefix of a time-series collection's buckets
// collection.
const BucketsPrefix = "system.buckets."

// tsColl is a time-series collection as a read or write finds it.
type tsColl struct {
	db, name string // the time-series collection's name (the view)
	c        *catalog.Collection
	meta     *catalog.CollMeta
	opts     timeseries.Options
}

// timeseriesOptions returns the timeseries options of a bucket collection.
func timeseriesOptions(m *catalog.CollMeta) (timeseries.Options, bool) {
	v, ok := catalog.FieldOf(m.Options, "timeseries")
	if !ok {
		return timeseries.Options{}, false
	}
	d, _ := v.(bson.D)
	o, err := timeseries.FromDoc(d)
	return o, err == nil
}

// timeseriesOf returns the time-series collection db.coll, or nil when
// db.coll is not one.
func (e *Engine) timeseriesOf(db, coll string) *tsColl {
	e.mu.RLock()
	defer e.mu.RUnlock()
	if e.cat.Lookup(db, coll) != nil {
		return nil
	}
	c := e.cat.Lookup(db, BucketsPrefix+coll)
	if c == nil {
		return nil
	}
	o, ok := timeseriesOptions(c.Meta)
	if !ok {
		return nil
	}
	return &tsColl{db: db, name: coll, c: c, meta: c.Meta, opts: o}
}

// createTimeseries creates the time-series collection db.coll: its bucket
// collection, clustered, with the timeseries options and the TTL.
func (e *Engine) createTimeseries(db, coll string, req CreateCollectionRequest) error {
	o := *req.Timeseries
	if err := o.Normalize(db + "." + coll); err != nil {
		return err
	}
	buckets := BucketsPrefix + coll
	if err := catalog.CheckCreateNS(db, buckets); err != nil {
		return err
	}
	e.ddl.Lock()
	defer e.ddl.Unlock()
	if e.lookupColl(db, coll) != nil || e.lookupColl(db, buckets) != nil {
		return mongoerr.Newf(mongoerr.NamespaceExists, "Collection %s.%s already exists.", db, coll)
	}
	options := req.Validation.appendTo(bson.D{})
	options = append(options, bson.E{Key: "clusteredIndex", Value: true}, bson.E{Key: "timeseries", Value: o.OptionsDoc()})
	if req.ExpireAfterSeconds != nil {
		options = append(options, bson.E{Key: "expireAfterSeconds", Value: *req.ExpireAfterSeconds})
	}
	c, err := e.createLocked(db, buckets, options)
	if err != nil {
		return err
	}
	e.registerClustered(c.Meta)
	return nil
}

// timeseriesEntry is the listCollections entry of the time-series
// collection whose buckets are m.
func timeseriesEntry(m *catalog.CollMeta, o timeseries.Options, nameOnly bool) bson.D {
	name := m.Name[len(BucketsPrefix):]
	if nameOnly {
		return bson.D{{Key: "name", Value: name}, {Key: "type", Value: "timeseries"}}
	}
	opts := bson.D{{Key: "timeseries", Value: o.OptionsDoc()}}
	if v, ok := catalog.FieldOf(m.Options, "expireAfterSeconds"); ok {
		opts = append(opts, bson.E{Key: "expireAfterSeconds", Value: v})
	}
	return bson.D{
		{Key: "name", Value: name},
		{Key: "type", Value: "timeseries"},
		{Key: "options", Value: opts},
		{Key: "info", Value: bson.D{{Key: "readOnly", Value: false}}},
	}
}

// tsInsert adds measurements to their buckets: the bucket of a
// measurement's start and meta value with room for it, or a new one. All
// the buckets a request changes are written once, at its end, in the
// writer's batches.
func (e *Engine) tsInsert(ctx context.Context, ts *tsColl, req InsertRequest) (InsertResult, error) {
	var res InsertResult
	c := e.lockColl(ts.db, ts.meta.Name)
	if c == nil {
		return e.insert(ctx, ts.db, ts.name, req)
	}
	defer c.WriteMu.Unlock()
	o, ok := timeseriesOptions(c.Meta)
	if !ok {
		return res, fmt.Errorf("docdb: %s.%s lost its timeseries options", ts.db, ts.meta.Name)
	}
	w := e.newWriter(c)
	defer w.close()
	type open struct {
		b    *timeseries.Bucket
		prev *stored.Doc // nil for a new bucket
	}
	buckets := map[bson.ObjectID]*open{}
	var order []bson.ObjectID
	wake := int64(0)
	for i, raw := range req.Documents {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		sd, err := e.prepareInsert(raw)
		var m timeseries.Measurement
		if err == nil {
			m, err = o.NewMeasurement(sd.Doc, len(sd.Raw))
		}
		if err != nil {
			res.WriteErrors = append(res.WriteErrors, WriteError{Index: i, Err: err})
			if req.Ordered {
				break
			}
			continue
		}
		start := o.StartOf(m.Time)
		hint := bucketHint{coll: c.Meta.ID, start: start, meta: string(m.MetaKey)}
		for probe := e.tsHints.get(hint); ; probe++ {
			id := timeseries.BucketID(start, m.MetaKey, probe)
			ob := buckets[id]
			if ob == nil {
				idEnc, err := keycodec.AppendValue(nil, id, false)
				if err != nil {
					return res, err
				}
				prev, err := w.fetch(idEnc)
				if err != nil {
					return res, err
				}
				ob = &open{prev: prev}
				if prev == nil {
					ob.b = o.NewBucket(id, m)
				} else if ob.b, err = o.Decode(prev.Doc, len(prev.Raw)); err != nil {
					return res, err
				}
				buckets[id] = ob
				order = append(order, id)
			}
			if o.Holds(ob.b, m) && ob.b.Fits(m) {
				ob.b.Add(m)
				e.tsHints.set(hint, probe)
				break
			}
		}
		res.N++
		if wake == 0 || start < wake {
			wake = start
		}
	}
	for _, id := range order {
		ob := buckets[id]
		if ob.b.Count == 0 {
			continue
		}
		raw, err := bson.Marshal(o.BucketDoc(ob.b))
		if err != nil {
			return res, fmt.Errorf("docdb: bucket: %w", err)
		}
		next, err := stored.New(raw)
		if err != nil {
			return res, err
		}
		if ob.prev == nil {
			err = w.insert(next)
		} else {
			err = w.replace(ob.prev, next)
		}
		if err != nil {
			return res, err
		}
		if w.full() {
			if err := w.commit(); err != nil {
				return res, err
			}
		}
	}
	if err := w.finish(); err != nil {
		return res, err
	}
	if ix := c.Meta.ClusteredTTLIndex(); ix != nil && e.opts.Expiry != nil && len(order) > 0 {
		e.opts.Expiry.Wake(time.UnixMilli(catalog.AddSeconds(wake, ix.ExpireAfter+o.MaxSpan)))
	}
	return res, nil
}

// tsScan returns an iterator over the visible measurements of ts that the
// bounds of filter allow (every one is matched against filter by the
// caller), in bucket order.
func (e *Engine) tsScan(ts *tsColl, filter bson.D, env match.Env) (aggregate.Iterator, error) {
	var f *match.Filter
	if len(filter) > 0 {
		var err error
		if f, err = match.ParseQuery(filter, env); err != nil {
			return nil, err
		}
	}
	view := e.openRead(ts.db, ts.meta.Name)
	if view.meta == nil {
		view.close()
		return aggregate.SliceIterator(nil), nil
	}
	o, ok := timeseriesOptions(view.meta)
	if !ok {
		view.close()
		return aggregate.SliceIterator(nil), nil
	}
	it := &measurementIter{view: view, o: o, filter: f, bounds: o.BoundsOf(filter)}
	if ix := view.meta.ClusteredTTLIndex(); ix != nil && e.opts.Visibility == VisibilityStrict {
		it.hideAtOrBefore = subSeconds(env.Now.UnixMilli(), ix.ExpireAfter)
		it.hides = true
	}
	if meta, nowMs := view.meta, env.Now.UnixMilli(); meta.HasTTL() && e.opts.Visibility == VisibilityStrict {
		it.bucketExpired = func(d bson.D) bool { return meta.Expired(d, nowMs) }
	}
	lo, hi := catalog.DocPrefix(view.meta.ID), storage.PrefixEnd(catalog.DocPrefix(view.meta.ID))
	if b := it.bounds; !b.Empty() && !timeseries.InExtendedRange(b.Lo) && !timeseries.InExtendedRange(b.Hi) && !tsHasExtended(view) {
		// Buckets sort by start: those that can hold a time in [Lo, Hi]
		// start from Lo's bucket start to Hi's.
		klo, err := bucketKey(view.meta.ID, timeseries.IDLowerBound(o.StartOf(b.Lo)))
		if err != nil {
			view.close()
			return nil, err
		}
		lo = klo
		if b.Hi < (int64(1)<<31-1)*1000 {
			khi, err := bucketKey(view.meta.ID, timeseries.IDLowerBound(o.StartOf(b.Hi)+o.MaxSpan*1000))
			if err != nil {
				view.close()
				return nil, err
			}
			hi = khi
		}
	}
	if it.bounds.Empty() {
		lo = hi
	}
	sit, err := view.snap.NewIter(lo, hi)
	if err != nil {
		view.close()
		return nil, err
	}
	it.it, it.started = sit, false
	return it, nil
}

// bucketKey is the storage key of the bucket with _id id.
func bucketKey(collID uint64, id bson.ObjectID) ([]byte, error) {
	enc, err := keycodec.AppendValue(nil, id, false)
	if err != nil {
		return nil, err
	}
	return catalog.DocKey(collID, enc), nil
}

// tsHasExtended reports whether a bucket collection holds buckets of the
// extended range (dates before 1970 or after 2038-01-19), whose _ids do not
// sort by time.
func tsHasExtended(view readView) bool {
	k, err := bucketKey(view.meta.ID, timeseries.ExtendedRangeStart())
	if err != nil {
		return true
	}
	it, err := view.snap.NewIter(k, storage.PrefixEnd(catalog.DocPrefix(view.meta.ID)))
	if err != nil {
		return true
	}
	defer it.Close()
	return it.First()
}

// measurementIter unpacks buckets into their visible measurements.
type measurementIter struct {
	view    readView
	it      *storage.Iter
	started bool
	o       timeseries.Options
	filter  *match.Filter
	bounds  timeseries.Bounds
	// hides is set under strict visibility: measurements with a time at or
	// before hideAtOrBefore are expired.
	hides          bool
	hideAtOrBefore int64
	// bucketExpired, under strict visibility, says a TTL index of the
	// buckets has expired a whole bucket.
	bucketExpired func(bson.D) bool
	pending       []bson.D
}

func (m *measurementIter) Next(ctx context.Context) (bson.D, bool, error) {
	for {
		for len(m.pending) > 0 {
			d := m.pending[0]
			m.pending = m.pending[1:]
			t, _ := m.o.TimeOf(d)
			if m.hides && t <= m.hideAtOrBefore {
				continue
			}
			if t < m.bounds.Lo || t > m.bounds.Hi {
				continue
			}
			if m.filter != nil && !m.filter.Matches(d) {
				continue
			}
			return d, true, nil
		}
		if err := ctx.Err(); err != nil {
			return nil, false, err
		}
		var ok bool
		if !m.started {
			ok, m.started = m.it.First(), true
		} else {
			ok = m.it.Next()
		}
		if !ok {
			return nil, false, m.it.Error()
		}
		sd, err := stored.NewFast(m.it.Value())
		if err != nil {
			return nil, false, fmt.Errorf("docdb: bucket: %w", err)
		}
		b, err := m.o.Decode(sd.Doc, len(m.it.Value()))
		if err != nil {
			return nil, false, err
		}
		if !m.bounds.Overlaps(b) || (m.hides && b.Latest <= m.hideAtOrBefore) {
			continue
		}
		if m.bucketExpired != nil && m.bucketExpired(sd.Doc) {
			continue // a partial TTL index's
		}
		m.pending = m.o.Unpack(b)
	}
}

func (m *measurementIter) Close() error {
	var err error
	if m.it != nil {
		err = m.it.Close()
		m.it = nil
	}
	m.view.close()
	return err
}

// tsFind runs a find on a time-series collection as the pipeline of its
// filter, sort, skip, limit and projection.
func (e *Engine) tsFind(ctx context.Context, ts *tsColl, req FindRequest) (Cursor, error) {
	var p []bson.D
	if len(req.Filter) > 0 {
		p = append(p, bson.D{{Key: "$match", Value: req.Filter}})
	}
	if len(req.Sort) > 0 {
		p = append(p, bson.D{{Key: "$sort", Value: req.Sort}})
	}
	if req.Skip > 0 {
		p = append(p, bson.D{{Key: "$skip", Value: req.Skip}})
	}
	if req.Limit > 0 {
		p = append(p, bson.D{{Key: "$limit", Value: req.Limit}})
	}
	if len(req.Projection) > 0 {
		p = append(p, bson.D{{Key: "$project", Value: req.Projection}})
	}
	return e.aggregate(ctx, ts.db, ts.name, AggregateRequest{Pipeline: p, AllowDiskUse: req.AllowDiskUse})
}

// tsCount counts the measurements of a time-series collection matching req.
func (e *Engine) tsCount(ctx context.Context, ts *tsColl, req CountRequest) (int64, error) {
	cur, err := e.tsFind(ctx, ts, FindRequest{Filter: req.Filter, Skip: req.Skip, Limit: req.Limit})
	if err != nil {
		return 0, err
	}
	defer cur.Close()
	n := int64(0)
	for {
		if _, err := cur.Next(ctx); errors.Is(err, io.EOF) {
			return n, nil
		} else if err != nil {
			return 0, err
		}
		n++
	}
}

// tsDistinct returns the distinct values of req.Key among the matching
// measurements, as distinct does for a collection.
func (e *Engine) tsDistinct(ctx context.Context, ts *tsColl, req DistinctRequest) (bson.A, error) {
	if req.Key == "" {
		return nil, mongoerr.New(mongoerr.Location40352, "FieldPath cannot be constructed with empty string")
	}
	it, err := e.tsScan(ts, req.Filter, match.Env{Now: e.opts.Now()})
	if err != nil {
		return nil, err
	}
	defer it.Close()
	parts := query.SplitPath(req.Key)
	var values []any
	seen := map[string]bool{}
	add := func(v any) {
		enc, err := keycodec.AppendValue(nil, v, false)
		if err == nil && !seen[string(enc)] {
			seen[string(enc)] = true
			values = append(values, v)
		}
	}
	for {
		d, ok, err := it.Next(ctx)
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
		distinctValuesOf(d, parts, add)
	}
	sort.SliceStable(values, func(i, j int) bool { return query.Compare(values[i], values[j]) < 0 })
	return bson.A(values), nil
}

// tsDelete deletes the measurements matching each statement's filter
// (limit 0 only, as MongoDB 7.0 requires of time-series deletes). A bucket
// whose every measurement matches (a filter on the metaField alone matches
// all or none of a bucket) is removed whole; one with some matching
// measurements is rewritten without them. n counts measurements.
func (e *Engine) tsDelete(ctx context.Context, ts *tsColl, req DeleteRequest) (DeleteResult, error) {
	var res DeleteResult
	for i, st := range req.Statements {
		if st.Limit != 0 {
			res.WriteErrors = append(res.WriteErrors, WriteError{Index: i, Err: mongoerr.New(mongoerr.IllegalOperation,
				"Cannot perform a non-multi delete on a time-series collection")})
			if req.Ordered {
				break
			}
			continue
		}
		n, err := e.tsDeleteMatching(ctx, ts, st.Filter, req.Let)
		res.N += n
		if err != nil {
			if _, ok := mongoerr.As(err); !ok {
				return res, err
			}
			res.WriteErrors = append(res.WriteErrors, WriteError{Index: i, Err: err})
			if req.Ordered {
				break
			}
		}
	}
	return res, nil
}

func (e *Engine) tsDeleteMatching(ctx context.Context, ts *tsColl, filter bson.D, let bson.D) (int64, error) {
	now := e.opts.Now()
	f, err := match.ParseQuery(filter, match.Env{Now: now, Let: let})
	if err != nil {
		return 0, err
	}
	return e.tsEachBucket(ctx, ts, now, func(w *writer, o timeseries.Options, prev *stored.Doc, b *timeseries.Bucket, hidden func(bson.D) bool) (int64, error) {
		if !o.BoundsOf(filter).Overlaps(b) {
			return 0, nil
		}
		var keep []bson.D
		matched := int64(0)
		for _, m := range o.Unpack(b) {
			if !hidden(m) && f.Matches(m) {
				matched++
				continue
			}
			keep = append(keep, m)
		}
		switch {
		case matched == 0:
			return 0, nil
		case len(keep) == 0:
			return matched, w.remove(prev)
		default:
			return matched, e.tsRewrite(w, o, prev, b.ID, keep)
		}
	})
}

// tsBucketVisit edits one bucket of a time-series collection through w
// and returns how many measurements it counted; hidden reports whether a
// measurement is past its expiry and so invisible.
type tsBucketVisit func(w *writer, o timeseries.Options, prev *stored.Doc, b *timeseries.Bucket, hidden func(bson.D) bool) (int64, error)

// tsEachBucket runs visit on every bucket of the collection, under its
// write lock, with one writer that commits as its batch fills, and sums
// what visit counted.
func (e *Engine) tsEachBucket(ctx context.Context, ts *tsColl, now time.Time, visit tsBucketVisit) (int64, error) {
	c := e.lockColl(ts.db, ts.meta.Name)
	if c == nil {
		return 0, nil
	}
	defer c.WriteMu.Unlock()
	o, ok := timeseriesOptions(c.Meta)
	if !ok {
		return 0, nil
	}
	hidden := func(bson.D) bool { return false }
	if ix := c.Meta.ClusteredTTLIndex(); ix != nil && e.opts.Visibility == VisibilityStrict {
		hideAtOrBefore := subSeconds(now.UnixMilli(), ix.ExpireAfter)
		hidden = func(m bson.D) bool {
			t, _ := o.TimeOf(m)
			return t <= hideAtOrBefore
		}
	}
	w := e.newWriter(c)
	defer w.close()
	p := catalog.DocPrefix(c.Meta.ID)
	it, err := e.store.NewIter(p, storage.PrefixEnd(p))
	if err != nil {
		return 0, err
	}
	defer it.Close()
	n := int64(0)
	for ok := it.First(); ok; ok = it.Next() {
		if err := ctx.Err(); err != nil {
			return n, err
		}
		prev, err := stored.New(append(bson.Raw(nil), it.Value()...))
		if err != nil {
			return n, err
		}
		b, err := o.Decode(prev.Doc, len(prev.Raw))
		if err != nil {
			return n, err
		}
		k, err := visit(w, o, prev, b, hidden)
		n += k
		if err != nil {
			return n, err
		}
		if w.full() {
			if err := w.commit(); err != nil {
				return n, err
			}
		}
	}
	if err := it.Error(); err != nil {
		return n, err
	}
	return n, w.finish()
}

// tsRewrite replaces bucket prev with one holding only the measurements
// keep.
func (e *Engine) tsRewrite(w *writer, o timeseries.Options, prev *stored.Doc, id bson.ObjectID, keep []bson.D) error {
	var b *timeseries.Bucket
	for _, d := range keep {
		raw, err := bson.Marshal(d)
		if err != nil {
			return err
		}
		m, err := o.NewMeasurement(d, len(raw))
		if err != nil {
			return err
		}
		if b == nil {
			b = o.NewBucket(id, m)
		}
		b.Add(m)
	}
	raw, err := bson.Marshal(o.BucketDoc(b))
	if err != nil {
		return err
	}
	next, err := stored.New(raw)
	if err != nil {
		return err
	}
	return w.replace(prev, next)
}

// errTimeseriesIndexTTL is collMod's error for an index TTL on a
// time-series collection, whose TTL is the collection's own.
var errTimeseriesIndexTTL = mongoerr.New(mongoerr.InvalidOptions,
	"TTL indexes are not supported for time-series collections. Please refer to the documentation and use the top-level 'expireAfterSeconds' option instead")

// The errors of what mayfly does not support on time-series collections
// yet: updates of measurements and secondary indexes.
var (
	errTimeseriesUpdates = mongoerr.New(mongoerr.NotImplemented,
		"updates of time-series collections are supported only as multi updates whose filter and operators name only the metaField")
	errTimeseriesIndexes = mongoerr.New(mongoerr.NotImplemented,
		"indexes on time-series collections are supported only on the metaField and the timeField, with partial filters on the metaField")
)

// tsUpdate runs updates of the metaField: multi updates whose filter and
// update operators name only the metaField (MongoDB's time-series updates
// before arbitrary ones). Every measurement of a matching bucket gets the
// new meta value, the bucket is rewritten with it; n and nModified count
// the visible measurements. Other updates are refused.
func (e *Engine) tsUpdate(ctx context.Context, ts *tsColl, req UpdateRequest) (UpdateResult, error) {
	var res UpdateResult
	for i, st := range req.Statements {
		n, err := e.tsUpdateMeta(ctx, ts, st, req.Let)
		res.N += n
		res.NModified += n
		if err != nil {
			if _, ok := mongoerr.As(err); !ok {
				return res, err
			}
			res.WriteErrors = append(res.WriteErrors, WriteError{Index: i, Err: err})
			if req.Ordered {
				break
			}
		}
	}
	return res, nil
}

// onlyMeta reports whether a filter names no field but the metaField (or
// its subfields), through $and, $or and $nor.
func onlyMeta(filter bson.D, meta string) bool {
	for _, e := range filter {
		switch e.Key {
		case "$and", "$or", "$nor":
			arr, _ := e.Value.(bson.A)
			for _, x := range arr {
				d, ok := x.(bson.D)
				if !ok || !onlyMeta(d, meta) {
					return false
				}
			}
		default:
			if !isMetaPath(e.Key, meta) {
				return false
			}
		}
	}
	return true
}

func isMetaPath(path, meta string) bool {
	return meta != "" && (path == meta || len(path) > len(meta) && path[:len(meta)] == meta && path[len(meta)] == '.')
}

func (e *Engine) tsUpdateMeta(ctx context.Context, ts *tsColl, st UpdateStatement, let bson.D) (int64, error) {
	now := e.opts.Now()
	env := match.Env{Now: now, Let: let}
	if !st.Multi || st.Upsert || st.Pipeline != nil || !onlyMeta(st.Filter, ts.opts.MetaField) {
		return 0, errTimeseriesUpdates
	}
	u, err := parseUpdate(st.Update, nil, true, st.ArrayFilters, env)
	if err != nil {
		return 0, err
	}
	if u.Kind() == update.Replacement {
		return 0, errTimeseriesUpdates
	}
	for _, p := range u.Paths() {
		if !isMetaPath(p, ts.opts.MetaField) {
			return 0, errTimeseriesUpdates
		}
	}
	f, err := match.ParseQuery(st.Filter, env)
	if err != nil {
		return 0, err
	}
	return e.tsEachBucket(ctx, ts, now, func(w *writer, o timeseries.Options, prev *stored.Doc, b *timeseries.Bucket, hidden func(bson.D) bool) (int64, error) {
		metaDoc := bson.D{}
		if b.HasMeta {
			metaDoc = bson.D{{Key: o.MetaField, Value: b.Meta}}
		}
		if !f.Matches(metaDoc) {
			return 0, nil
		}
		visible := int64(0)
		for _, m := range o.Unpack(b) {
			if !hidden(m) {
				visible++
			}
		}
		if visible == 0 {
			return 0, nil
		}
		out, changed, err := u.Apply(metaDoc, update.ApplyContext{Now: now, Vars: env.Vars(), Context: ctx})
		if err != nil || !changed {
			return visible, err
		}
		b.Meta, b.MetaKey, b.HasMeta = nil, nil, false
		for _, e := range out {
			if e.Key == o.MetaField {
				b.Meta, b.HasMeta = e.Value, true
			}
		}
		raw, err := bson.Marshal(o.BucketDoc(b))
		if err != nil {
			return visible, err
		}
		next, err := stored.New(raw)
		if err != nil {
			return visible, err
		}
		return visible, w.replace(prev, next)
	})
}

// tsCollStats is collStats of a time-series collection: its bucket
// collection's figures and the timeseries section counting the buckets.
func (e *Engine) tsCollStats(ctx context.Context, ts *tsColl) (CollStats, error) {
	st, err := e.collStats(ctx, ts.db, ts.meta.Name)
	if err != nil {
		return st, err
	}
	st.Timeseries = &TimeseriesStats{BucketsNs: ts.db + "." + ts.meta.Name, BucketCount: st.Count, AvgBucketSize: st.AvgObjSize}
	return st, nil
}

// bucketHints remembers, for a bucket start and meta value of a
// collection, the probe number of the bucket that last took a
// measurement, so that an insert skips the full buckets before it. A hint
// only says where to start looking: a bucket it skips that has room again
// (after a delete) stays as it is, which breaks no bucketing rule. The
// hints are forgotten when there are too many.
type bucketHints struct {
	mu    sync.Mutex
	hints map[bucketHint]uint64
}

type bucketHint struct {
	coll  uint64
	start int64
	meta  string
}

// maxBucketHints bounds the hints kept.
const maxBucketHints = 1 << 16

func (h *bucketHints) get(k bucketHint) uint64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.hints[k]
}

func (h *bucketHints) set(k bucketHint, probe uint64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.hints == nil || len(h.hints) >= maxBucketHints {
		h.hints = map[bucketHint]uint64{}
	}
	if probe == 0 {
		delete(h.hints, k)
		return
	}
	h.hints[k] = probe
}

// Indexes of a time-series collection are indexes of its buckets on the
// metaField (the buckets' meta, or a subfield) and the timeField (the
// buckets' control.max.<time>). A TTL index is allowed only on the
// timeField with a partialFilterExpression on the metaField alone: it
// deletes the buckets of matching meta values whose latest measurement is
// older than its expireAfterSeconds, and strict visibility hides them at
// once.

// bucketPath translates a measurement field path to the bucket field an
// index reads; ok is false for a field neither the time nor the meta one.
func (t *tsColl) bucketPath(p string) (string, bool) {
	switch {
	case p == t.opts.TimeField:
		return "control.max." + p, true
	case isMetaPath(p, t.opts.MetaField):
		return "meta" + p[len(t.opts.MetaField):], true
	}
	return "", false
}

// measurementPath is bucketPath's inverse.
func (t *tsColl) measurementPath(p string) string {
	switch {
	case p == "control.max."+t.opts.TimeField:
		return t.opts.TimeField
	case p == "meta" || len(p) > 5 && p[:5] == "meta.":
		return t.opts.MetaField + p[4:]
	}
	return p
}

// renameKeys returns d with its field names (at the top level, and inside
// $and, $or and $nor) mapped by f.
func renameKeys(d bson.D, f func(string) string) bson.D {
	out := make(bson.D, len(d))
	for i, e := range d {
		switch e.Key {
		case "$and", "$or", "$nor":
			arr, _ := e.Value.(bson.A)
			na := make(bson.A, len(arr))
			for j, x := range arr {
				if sub, ok := x.(bson.D); ok {
					na[j] = renameKeys(sub, f)
				} else {
					na[j] = x
				}
			}
			out[i] = bson.E{Key: e.Key, Value: na}
		default:
			out[i] = bson.E{Key: f(e.Key), Value: e.Value}
		}
	}
	return out
}

var errTimeseriesTTLIndex = mongoerr.New(mongoerr.InvalidOptions,
	"TTL indexes are not supported for time-series collections. Please refer to the documentation and use the top-level 'expireAfterSeconds' option instead")

// tsCreateIndexes creates indexes of a time-series collection on its
// buckets.
func (e *Engine) tsCreateIndexes(ctx context.Context, ts *tsColl, specs []IndexSpec) (CreateIndexesResult, error) {
	out := make([]IndexSpec, len(specs))
	for i, sp := range specs {
		_, ttl := catalog.FieldOf(sp.Options, "expireAfterSeconds")
		pfe, hasPFE := catalog.FieldOf(sp.Options, "partialFilterExpression")
		if ttl {
			if len(sp.Key) != 1 {
				return CreateIndexesResult{}, mongoerr.New(mongoerr.CannotCreateIndex,
					"TTL indexes are single-field indexes, compound indexes do not support TTL")
			}
			filter, _ := pfe.(bson.D)
			if sp.Key[0].Key != ts.opts.TimeField || !hasPFE || len(filter) == 0 || !onlyMeta(filter, ts.opts.MetaField) {
				return CreateIndexesResult{}, errTimeseriesTTLIndex
			}
		}
		key := make(bson.D, len(sp.Key))
		for j, k := range sp.Key {
			p, ok := ts.bucketPath(k.Key)
			if !ok {
				return CreateIndexesResult{}, errTimeseriesIndexes
			}
			key[j] = bson.E{Key: p, Value: k.Value}
		}
		opts := append(bson.D(nil), sp.Options...)
		for j, o := range opts {
			if o.Key == "partialFilterExpression" {
				filter, _ := o.Value.(bson.D)
				if !onlyMeta(filter, ts.opts.MetaField) {
					return CreateIndexesResult{}, errTimeseriesIndexes
				}
				opts[j].Value = renameKeys(filter, func(p string) string { q, _ := ts.bucketPath(p); return q })
			}
		}
		out[i] = IndexSpec{Key: key, Name: sp.Name, Options: opts}
	}
	c := e.lockColl(ts.db, ts.meta.Name)
	if c == nil {
		return CreateIndexesResult{}, mongoerr.Newf(mongoerr.NamespaceNotFound, "Collection %s.%s does not exist.", ts.db, ts.name)
	}
	return e.createIndexesOn(ctx, c, false, out)
}

// tsListIndexes lists the indexes of a time-series collection as the
// measurements' indexes: its buckets' secondary indexes, their fields
// named as the measurements name them.
func (e *Engine) tsListIndexes(ctx context.Context, ts *tsColl) ([]bson.D, error) {
	all, err := e.listIndexes(ctx, ts.db, ts.meta.Name)
	if err != nil {
		return nil, err
	}
	out := []bson.D{}
	for _, spec := range all {
		if _, clustered := catalog.FieldOf(spec, "clustered"); clustered {
			continue
		}
		d := make(bson.D, len(spec))
		for i, el := range spec {
			d[i] = el
			switch el.Key {
			case "key":
				k, _ := el.Value.(bson.D)
				d[i].Value = renameKeys(k, ts.measurementPath)
			case "partialFilterExpression":
				f, _ := el.Value.(bson.D)
				d[i].Value = renameKeys(f, ts.measurementPath)
			}
		}
		out = append(out, d)
	}
	return out, nil
}
