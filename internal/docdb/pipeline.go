package docdb

import (
	"context"
	"errors"
	"fmt"
	"io"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/aggregate"
	"github.com/mayfly/mayfly/internal/docdb/catalog"
	"github.com/mayfly/mayfly/internal/docdb/collation"
	"github.com/mayfly/mayfly/internal/docdb/match"
	"github.com/mayfly/mayfly/internal/docdb/plan"
)

// Aggregation: the leading $match of a pipeline is planned like a find (so
// it uses indexes and strict visibility), and the rest runs in
// internal/docdb/aggregate over the matching documents. The Engine is the
// pipeline's Resolver ($lookup, $graphLookup, $unionWith read other
// collections through the planner too) and its Writer ($out, $merge).

func (e *Engine) aggregate(ctx context.Context, db, coll string, req AggregateRequest) (Cursor, error) {
	req.Collation = e.collationOr(ctx, db, coll, req.Collation)
	if err := catalog.CheckDB(db); err != nil {
		return nil, err
	}
	if coll != "" {
		if err := catalog.CheckReadNS(db, coll); err != nil {
			return nil, err
		}
	}
	now := e.opts.Now()
	pl, err := e.parsePipeline(req, now)
	if err != nil {
		return nil, err
	}
	if odb, ocoll, ok := pl.Output(); ok {
		if odb == "" {
			odb = db
		}
		if err := catalog.CheckWriteNS(odb, ocoll); err != nil {
			return nil, err
		}
	}
	leading, rest := pl.LeadingMatch()
	env, err := match.NewEnv(now, req.Let)
	if err != nil {
		return nil, err
	}
	if env, err = env.WithCollation(req.Collation); err != nil {
		return nil, err
	}
	var in aggregate.Iterator
	var expired func(bson.D) bool
	if coll == "" {
		in = aggregate.SliceIterator(nil)
		rest = pl
	} else if ts := e.timeseriesOf(db, coll); ts != nil {
		if in, err = e.tsScan(ts, leading, env); err != nil {
			return nil, err
		}
	} else {
		in, err = e.scan(ctx, db, coll, leading, req.Hint, env, true)
		if err != nil {
			return nil, err
		}
		if di, ok := in.(*docIterator); ok && di.c.vis.strict {
			expired = di.c.expired
		}
	}
	out, err := rest.Run(ctx, in, aggregate.Env{
		DB:        db,
		Resolver:  resolver{e: e, db: db},
		Writer:    pipelineWriter{e: e, bypass: req.BypassDocumentValidation},
		Vars:      env.Vars(),
		Expired:   expired,
		Collation: env.Collation,
		SortMemory: aggregate.MemoryLimit{
			Limit:     e.SortMemoryLimit(),
			AllowDisk: e.allowDiskUse(req.AllowDiskUse),
			Dir:       e.qmem.dir,
		},
		GroupMemory: aggregate.MemoryLimit{
			Limit:     e.GroupMemoryLimit(),
			AllowDisk: e.allowDiskUse(req.AllowDiskUse),
			Dir:       e.qmem.dir,
		},
	})
	if err != nil {
		return nil, err
	}
	cur := &aggCursor{it: out}
	if rest.KeepsDocuments() {
		cur.expired = expired
	}
	if _, _, ok := pl.Output(); ok {
		// $out and $merge write everything before the command returns,
		// whatever batch size the client asked for.
		for {
			if _, err := cur.Next(ctx); err != nil {
				cur.Close()
				if errors.Is(err, io.EOF) {
					return emptyCursor{}, nil
				}
				return nil, &ExecError{Err: err}
			}
		}
	}
	return cur, nil
}

// scan returns an iterator over the documents of db.coll matching filter,
// planned like a find. With strictFilter the filter must parse (the
// client's own $match); otherwise a filter that does not parse is dropped,
// since a Resolver's filter is only a hint.
func (e *Engine) scan(ctx context.Context, db, coll string, filterSpec bson.D, hint any, env match.Env, strictFilter bool) (aggregate.Iterator, error) {
	q := &findQuery{hint: hint, now: env.Now}
	if len(filterSpec) > 0 {
		f, err := match.ParseQuery(filterSpec, env)
		switch {
		case err == nil:
			q.filter = f
		case strictFilter:
			return nil, err
		}
	}
	view := e.openReadIn(ctx, db, coll)
	if view.meta == nil {
		view.close()
		return aggregate.SliceIterator(nil), nil
	}
	p, err := plan.Choose(view.meta, plan.Request{Filter: q.filter, Hint: q.hint})
	if err != nil {
		view.close()
		return nil, err
	}
	return &docIterator{c: e.newFindCursor(view, p, q)}, nil
}

// docIterator adapts a find cursor to aggregate.Iterator.
type docIterator struct {
	c *findCursor
}

func (it *docIterator) Next(ctx context.Context) (bson.D, bool, error) {
	if it.c.closed {
		return nil, false, nil
	}
	d, err := it.c.nextMatch(ctx)
	if err != nil || d == nil {
		return nil, false, err
	}
	return d.Stored.Doc, true, nil
}

func (it *docIterator) Close() error {
	it.c.Close()
	return nil
}

// aggCursor adapts a pipeline's output to Cursor.
type aggCursor struct {
	it     aggregate.Iterator
	closed bool
	// expired re-checks an output document against the clock when the
	// pipeline outputs the collection's documents unchanged; nil otherwise.
	expired func(bson.D) bool
	// last is the document the last Next returned, when expired is set.
	last bson.D
}

// StillVisible implements Rechecker.
func (c *aggCursor) StillVisible() bool {
	return c.expired == nil || c.last == nil || !c.expired(c.last)
}

func (c *aggCursor) Next(ctx context.Context) (bson.Raw, error) {
	if c.closed {
		return nil, ErrCursorClosed
	}
	d, ok, err := c.it.Next(ctx)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, io.EOF
	}
	if c.expired != nil {
		c.last = d
	}
	return marshalDoc(d)
}

func (c *aggCursor) Close() {
	if !c.closed {
		c.closed = true
		c.it.Close()
	}
}

// resolver implements aggregate.Resolver over the Engine.
type resolver struct {
	e  *Engine
	db string // the pipeline's database, for a db left empty
}

func (r resolver) Scan(ctx context.Context, db, coll string, filter bson.D, c *collation.Collator) (aggregate.Iterator, error) {
	if db == "" {
		db = r.db
	}
	if err := catalog.CheckReadNS(db, coll); err != nil {
		return nil, err
	}
	return r.e.scan(ctx, db, coll, filter, nil, match.Env{Now: r.e.opts.Now(), Collation: c}, false)
}

// pipelineWriter implements aggregate.Writer over the Engine.
type pipelineWriter struct {
	e      *Engine
	bypass bool
}

func (w pipelineWriter) Insert(ctx context.Context, db, coll string, doc bson.D) error {
	raw, err := marshalDoc(doc)
	if err != nil {
		return err
	}
	res, err := w.e.Insert(ctx, db, coll, InsertRequest{Documents: []bson.Raw{raw}, Ordered: true, BypassDocumentValidation: w.bypass})
	if err != nil {
		return err
	}
	if len(res.WriteErrors) > 0 {
		return res.WriteErrors[0].Err
	}
	return nil
}

func (w pipelineWriter) Replace(ctx context.Context, db, coll string, id any, doc bson.D) error {
	res, err := w.e.Update(ctx, db, coll, UpdateRequest{
		Statements:               []UpdateStatement{{Filter: bson.D{{Key: "_id", Value: id}}, Update: withoutID(doc)}},
		Ordered:                  true,
		BypassDocumentValidation: w.bypass,
	})
	if err != nil {
		return err
	}
	if len(res.WriteErrors) > 0 {
		return res.WriteErrors[0].Err
	}
	return nil
}

// withoutID returns doc without its _id field (a replacement keeps the
// stored _id).
func withoutID(doc bson.D) bson.D {
	out := make(bson.D, 0, len(doc))
	for _, e := range doc {
		if e.Key != "_id" {
			out = append(out, e)
		}
	}
	return out
}

// ReplaceCollection implements $out: the documents go into a temporary
// collection with the target's options and indexes, which then replaces
// the target in one rename, so readers see the old or the new contents,
// never a mix.
func (w pipelineWriter) ReplaceCollection(ctx context.Context, db, coll string, docs []bson.D) error {
	e := w.e
	if err := catalog.CheckWriteNS(db, coll); err != nil {
		return err
	}
	var options bson.D
	var specs []IndexSpec
	if c := e.lookupColl(db, coll); c != nil {
		e.mu.RLock()
		m := c.Meta
		e.mu.RUnlock()
		options = m.Options
		for _, ix := range m.Indexes {
			if !ix.IsID {
				specs = append(specs, storedIndexSpec(ix.Spec))
			}
		}
	}
	u := catalog.NewUUID()
	tmp := fmt.Sprintf("tmp.agg_out.%x", u.Data[:8])
	e.ddl.Lock()
	_, err := e.createLocked(db, tmp, options)
	e.ddl.Unlock()
	if err != nil {
		return err
	}
	fail := func(err error) error {
		if _, derr := e.DropCollection(context.WithoutCancel(ctx), db, tmp); derr != nil {
			return errors.Join(err, derr)
		}
		return err
	}
	for start := 0; start < len(docs); start += maxBatchDocs {
		end := min(start+maxBatchDocs, len(docs))
		raws := make([]bson.Raw, 0, end-start)
		for _, d := range docs[start:end] {
			raw, err := marshalDoc(d)
			if err != nil {
				return fail(err)
			}
			raws = append(raws, raw)
		}
		res, err := e.Insert(ctx, db, tmp, InsertRequest{Documents: raws, Ordered: true, BypassDocumentValidation: w.bypass})
		if err != nil {
			return fail(err)
		}
		if len(res.WriteErrors) > 0 {
			return fail(res.WriteErrors[0].Err)
		}
	}
	if len(specs) > 0 {
		if _, err := e.CreateIndexes(ctx, db, tmp, specs); err != nil {
			return fail(err)
		}
	}
	if err := e.RenameCollection(ctx, db, tmp, db, coll, true); err != nil {
		return fail(err)
	}
	return nil
}
