package docdb

import (
	"context"
	"io"
	"sort"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/aggregate"
	"github.com/mayfly/mayfly/internal/docdb/catalog"
	"github.com/mayfly/mayfly/internal/docdb/collation"
	"github.com/mayfly/mayfly/internal/docdb/match"
	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
	"github.com/mayfly/mayfly/internal/docdb/plan"
	"github.com/mayfly/mayfly/internal/docdb/query"
	"github.com/mayfly/mayfly/internal/keycodec"
	"github.com/mayfly/mayfly/internal/storage"
)

// readView is a consistent read of one collection: its metadata and a
// storage snapshot taken together under Engine.mu, so that the indexes the
// metadata names are exactly those the snapshot holds.
type readView struct {
	meta *catalog.CollMeta // nil when the collection does not exist
	snap *storage.Snapshot
	// txn is the transaction's view (its snapshot and own writes) that a
	// read in a transaction uses instead of snap.
	txn storage.Reader
}

// openReadIn is openRead for a read in the transaction ctx carries, if
// any: the transaction's view with the collection's current metadata.
func (e *Engine) openReadIn(ctx context.Context, db, coll string) readView {
	t := txnOf(ctx)
	if t == nil {
		return e.openRead(db, coll)
	}
	var v readView
	if c := e.lookupCollIn(ctx, db, coll); c != nil {
		v.meta = c.Meta
	}
	v.txn = t.b
	return v
}

// reader is what the view's reads go through.
func (v readView) reader() storage.Reader {
	if v.txn != nil {
		return v.txn
	}
	return v.snap
}

// openRead opens a read view of db.coll. The caller must close it.
func (e *Engine) openRead(db, coll string) readView {
	e.mu.RLock()
	defer e.mu.RUnlock()
	var v readView
	if c := e.cat.Lookup(db, coll); c != nil {
		v.meta = c.Meta
	}
	v.snap = e.store.NewSnapshot()
	return v
}

func (v readView) close() {
	if v.snap != nil {
		v.snap.Close()
	}
}

// findQuery is a parsed find (or count) request.
type findQuery struct {
	filter  *match.Filter
	proj    *query.Projection
	sort    *query.Sort
	natural int
	skip    int64
	limit   int64
	hint    any
	now     time.Time
	// allowDiskUse is the request's; nil means the default.
	allowDiskUse *bool
	// coll is the request's collation, nil for the simple one.
	coll *collation.Collator
	// returnKey and showRecordID shape the results (keyOutput).
	returnKey, showRecordID bool
}

// parseFind parses the parts of a find.
func (e *Engine) parseFind(req FindRequest) (*findQuery, error) {
	now := e.opts.Now()
	q := &findQuery{skip: req.Skip, limit: req.Limit, hint: req.Hint, now: now, allowDiskUse: req.AllowDiskUse}
	env, err := match.NewEnv(now, req.Let)
	if err != nil {
		return nil, err
	}
	if env, err = env.WithCollation(req.Collation); err != nil {
		return nil, err
	}
	q.coll = env.Collation
	q.returnKey, q.showRecordID = req.ReturnKey, req.ShowRecordID
	if len(req.Filter) > 0 {
		if q.filter, err = match.ParseQuery(req.Filter, env); err != nil {
			return nil, err
		}
	}
	if q.sort, q.natural, err = parseSort(req.Sort); err != nil {
		return nil, err
	}
	if q.coll != nil {
		q.sort = q.sort.WithCollation(q.coll)
	}
	if len(req.Projection) > 0 {
		if q.proj, err = parseProjection(req.Projection, env); err != nil {
			return nil, err
		}
	}
	return q, nil
}

// parseSort parses a sort, recognising {$natural: ±1}.
func parseSort(spec bson.D) (*query.Sort, int, error) {
	if len(spec) == 1 && spec[0].Key == "$natural" {
		if catalog.KeyDirection(spec[0].Value) < 0 {
			return nil, -1, nil
		}
		return nil, 1, nil
	}
	if len(spec) == 0 {
		return nil, 0, nil
	}
	s, err := query.ParseSort(spec)
	return s, 0, err
}

// parseProjection parses a find projection whose computed fields are
// aggregation expressions evaluated with env's $$NOW and let variables,
// comparing strings by env's collation.
func parseProjection(spec bson.D, env match.Env) (*query.Projection, error) {
	vars := env.Vars()
	if env.Collation != nil {
		vars = vars.WithCollation(env.Collation)
	}
	names := env.Names()
	return query.ParseProjectionWith(spec, query.ProjectionOptions{
		Expr: func(expr any) (query.ComputedField, error) {
			x, err := aggregate.CompileWith(expr, aggregate.CompileOptions{Vars: names})
			if err != nil {
				return nil, err
			}
			return func(doc bson.D) (any, bool, error) {
				v, err := x.Eval(vars, doc)
				if err != nil {
					return nil, false, err
				}
				if aggregate.IsMissing(v) {
					return nil, false, nil
				}
				return v, true, nil
			}, nil
		},
	})
}

func (e *Engine) find(ctx context.Context, db, coll string, req FindRequest) (Cursor, error) {
	req.Collation = e.collationOr(ctx, db, coll, req.Collation)
	if err := catalog.CheckReadNS(db, coll); err != nil {
		return nil, err
	}
	if id, ok := pointID(req.Filter); ok && txnOf(ctx) == nil && !collatedString(id, req.Collation) {
		if cur, ok, err := e.findPoint(db, coll, id, req); ok {
			return cur, err
		}
	}
	q, err := e.parseFind(req)
	if err != nil {
		return nil, err
	}
	view := e.openReadIn(ctx, db, coll)
	if view.meta == nil {
		view.close()
		return emptyCursor{}, nil
	}
	p, err := plan.Choose(view.meta, plan.Request{Filter: q.filter, Sort: q.sort, Hint: q.hint, Natural: q.natural})
	if err != nil {
		view.close()
		return nil, err
	}
	return e.newFindCursor(view, p, q), nil
}

// emptyCursor is the cursor of a query on a missing collection.
type emptyCursor struct{}

func (emptyCursor) Next(context.Context) (bson.Raw, error) { return nil, io.EOF }
func (emptyCursor) Close()                                 {}

// Finished implements Finisher.
func (emptyCursor) Finished() bool { return true }

func (e *Engine) count(ctx context.Context, db, coll string, req CountRequest) (int64, error) {
	req.Collation = e.collationOr(ctx, db, coll, req.Collation)
	if err := catalog.CheckReadNS(db, coll); err != nil {
		return 0, err
	}
	q, err := e.parseFind(FindRequest{Filter: req.Filter, Skip: req.Skip, Limit: req.Limit, Hint: req.Hint, Collation: req.Collation})
	if err != nil {
		return 0, err
	}
	view := e.openReadIn(ctx, db, coll)
	defer view.close()
	if view.meta == nil {
		return 0, nil
	}
	var stats plan.Stats
	n, err := e.runCount(ctx, view, q, &stats)
	return n, err
}

// runCount counts the documents of a count query on a view.
func (e *Engine) runCount(ctx context.Context, view readView, q *findQuery, stats *plan.Stats) (int64, error) {
	vis := e.newVisibility(view.meta)
	var total int64
	if q.filter == nil && q.hint == nil && !vis.strict {
		c := e.lookupColl(view.meta.DB, view.meta.Name)
		if c != nil && c.Meta.ID == view.meta.ID {
			// The counters are exact, but they follow the latest state,
			// not the snapshot; a count races writes either way.
			total, _, _ = c.Stats.Snapshot()
			return clampCount(total, q.skip, q.limit), nil
		}
	}
	p, err := plan.Choose(view.meta, plan.Request{Filter: q.filter, Hint: q.hint})
	if err != nil {
		return 0, err
	}
	sc := plan.NewScanner(view.reader(), p, stats)
	defer sc.Close()
	m := &plan.Matcher{Scanner: sc, Vis: &vis, Stats: stats}
	want := int64(-1)
	if q.limit > 0 {
		want = q.skip + q.limit
	}
	for want < 0 || total < want {
		d, err := m.Next(ctx)
		if err != nil {
			return 0, err
		}
		if d == nil {
			break
		}
		total++
	}
	return clampCount(total, q.skip, q.limit), nil
}

// clampCount applies count's skip and limit to a total.
func clampCount(total, skip, limit int64) int64 {
	n := total - skip
	if n < 0 {
		n = 0
	}
	if limit > 0 && n > limit {
		n = limit
	}
	return n
}

func (e *Engine) distinct(ctx context.Context, db, coll string, req DistinctRequest) (bson.A, error) {
	req.Collation = e.collationOr(ctx, db, coll, req.Collation)
	if err := catalog.CheckReadNS(db, coll); err != nil {
		return nil, err
	}
	if req.Key == "" {
		return nil, mongoerr.New(mongoerr.Location40352, "FieldPath cannot be constructed with empty string")
	}
	q, err := e.parseFind(FindRequest{Filter: req.Filter, Hint: req.Hint, Collation: req.Collation})
	if err != nil {
		return nil, err
	}
	view := e.openReadIn(ctx, db, coll)
	defer view.close()
	if view.meta == nil {
		return bson.A{}, nil
	}
	var stats plan.Stats
	return e.runDistinct(ctx, view, q, req.Key, &stats)
}

// runDistinct collects the distinct values of key among the documents of a
// query: arrays contribute their elements (one level), missing values
// nothing.
func (e *Engine) runDistinct(ctx context.Context, view readView, q *findQuery, key string, stats *plan.Stats) (bson.A, error) {
	p, err := plan.Choose(view.meta, plan.Request{Filter: q.filter, Hint: q.hint})
	if err != nil {
		return nil, err
	}
	vis := e.newVisibility(view.meta)
	sc := plan.NewScanner(view.reader(), p, stats)
	defer sc.Close()
	m := &plan.Matcher{Scanner: sc, Vis: &vis, Stats: stats}
	parts := query.SplitPath(key)
	var values []any
	seen := map[string]bool{}
	add := func(v any) {
		// Equal values (1 and 1.0 among them, and strings equal under the
		// collation) have one encoding.
		kv := v
		if q.coll != nil {
			kv = q.coll.Value(v)
		}
		enc, err := keycodec.AppendValue(nil, kv, false)
		if err != nil {
			return
		}
		if !seen[string(enc)] {
			seen[string(enc)] = true
			values = append(values, v)
		}
	}
	for {
		d, err := m.Next(ctx)
		if err != nil {
			return nil, err
		}
		if d == nil {
			break
		}
		distinctValuesOf(d.Stored.Doc, parts, add)
	}
	sort.SliceStable(values, func(i, j int) bool { return query.Compare(values[i], values[j]) < 0 })
	return bson.A(values), nil
}

// distinctValuesOf hands add each value distinct counts in doc at the
// path parts: every element of an array, other values as they are.
func distinctValuesOf(doc bson.D, parts []string, add func(any)) {
	query.Walk(doc, parts, query.WholeLeafArrays, func(c query.Candidate) bool {
		if c.Missing {
			return true
		}
		if arr, ok := query.AsArray(c.Value); ok {
			for _, el := range arr {
				add(el)
			}
			return true
		}
		add(c.Value)
		return true
	})
}
