package docdb

import (
	"context"
	"errors"
	"io"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/aggregate"
	"github.com/mayfly/mayfly/internal/docdb/catalog"
	"github.com/mayfly/mayfly/internal/docdb/match"
	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
	"github.com/mayfly/mayfly/internal/docdb/plan"
)

// Explain output in MongoDB's classic-engine shape: queryPlanner with the
// winning plan as a tree of stages (COLLSCAN or IXSCAN+FETCH, then SORT,
// SKIP, LIMIT, PROJECTION_*), and, when asked, executionStats from running
// the plan: nReturned, totalKeysExamined, totalDocsExamined,
// executionTimeMillis and executionStages (the same tree with per-stage
// counters).

func (e *Engine) explainFind(ctx context.Context, db, coll string, req FindRequest, v Verbosity) (bson.D, error) {
	if err := catalog.CheckReadNS(db, coll); err != nil {
		return nil, err
	}
	q, err := e.parseFind(req)
	if err != nil {
		return nil, err
	}
	shape := plan.Shape{Skip: q.skip, Limit: q.limit, Proj: req.Projection, ProjSimple: plan.IsSimpleProjection(req.Projection), SortMemLimit: e.SortMemoryLimit()}
	view := e.openRead(db, coll)
	if view.meta == nil {
		view.close()
		return missingExplain(db, coll, v), nil
	}
	p, err := plan.Choose(view.meta, plan.Request{Filter: q.filter, Sort: q.sort, Hint: q.hint, Natural: q.natural})
	if err != nil {
		view.close()
		return nil, err
	}
	out := bson.D{{Key: "queryPlanner", Value: plan.QueryPlanner(view.meta, db, coll, p, plan.Tree(p, shape, nil, 0))}}
	if v == QueryPlanner {
		view.close()
		return out, nil
	}
	start := time.Now()
	cur := e.newFindCursor(view, p, q)
	defer cur.Close()
	for {
		_, err := cur.Next(ctx)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	elapsed := time.Since(start)
	st := cur.stats
	out = append(out, bson.E{Key: "executionStats", Value: plan.ExecutionStats(st, st.Returned, elapsed, plan.Tree(p, shape, st, elapsed))})
	return out, nil
}

// missingExplain explains a query on a missing collection.
func missingExplain(db, coll string, v Verbosity) bson.D {
	out := bson.D{{Key: "queryPlanner", Value: plan.QueryPlanner(nil, db, coll, nil, plan.EOFTree())}}
	if v != QueryPlanner {
		out = append(out, bson.E{Key: "executionStats", Value: plan.ExecutionStats(&plan.Stats{}, 0, 0, plan.EOFTree())})
	}
	return out
}

func (e *Engine) explainCount(ctx context.Context, db, coll string, req CountRequest, v Verbosity) (bson.D, error) {
	if err := catalog.CheckReadNS(db, coll); err != nil {
		return nil, err
	}
	q, err := e.parseFind(FindRequest{Filter: req.Filter, Skip: req.Skip, Limit: req.Limit, Hint: req.Hint})
	if err != nil {
		return nil, err
	}
	view := e.openRead(db, coll)
	defer view.close()
	if view.meta == nil {
		return missingExplain(db, coll, v), nil
	}
	p, err := plan.Choose(view.meta, plan.Request{Filter: q.filter, Hint: q.hint})
	if err != nil {
		return nil, err
	}
	shape := plan.Shape{Top: "COUNT"}
	out := bson.D{{Key: "queryPlanner", Value: plan.QueryPlanner(view.meta, db, coll, p, plan.Tree(p, shape, nil, 0))}}
	if v == QueryPlanner {
		return out, nil
	}
	start := time.Now()
	var st plan.Stats
	// Count through the plan (not the counters) so the stats are real.
	q.hint = plan.Hint(p)
	n, err := e.runCount(ctx, view, q, &st)
	if err != nil {
		return nil, err
	}
	elapsed := time.Since(start)
	shape.TopExtra = bson.D{{Key: "nCounted", Value: int32(n)}, {Key: "nSkipped", Value: int32(min(q.skip, st.Matched))}}
	out = append(out, bson.E{Key: "executionStats", Value: plan.ExecutionStats(&st, 0, elapsed, plan.Tree(p, shape, &st, elapsed))})
	return out, nil
}

func (e *Engine) explainDistinct(ctx context.Context, db, coll string, req DistinctRequest, v Verbosity) (bson.D, error) {
	if err := catalog.CheckReadNS(db, coll); err != nil {
		return nil, err
	}
	q, err := e.parseFind(FindRequest{Filter: req.Filter, Hint: req.Hint})
	if err != nil {
		return nil, err
	}
	view := e.openRead(db, coll)
	defer view.close()
	if view.meta == nil {
		return missingExplain(db, coll, v), nil
	}
	p, err := plan.Choose(view.meta, plan.Request{Filter: q.filter, Hint: q.hint})
	if err != nil {
		return nil, err
	}
	shape := plan.Shape{Proj: bson.D{{Key: "_id", Value: int32(0)}, {Key: req.Key, Value: int32(1)}}}
	out := bson.D{{Key: "queryPlanner", Value: plan.QueryPlanner(view.meta, db, coll, p, plan.Tree(p, shape, nil, 0))}}
	if v == QueryPlanner {
		return out, nil
	}
	start := time.Now()
	var st plan.Stats
	q.hint = plan.Hint(p)
	vals, err := e.runDistinct(ctx, view, q, req.Key, &st)
	if err != nil {
		return nil, err
	}
	st.Returned = st.Matched
	elapsed := time.Since(start)
	out = append(out, bson.E{Key: "executionStats", Value: plan.ExecutionStats(&st, int64(len(vals)), elapsed, plan.Tree(p, shape, &st, elapsed))})
	return out, nil
}

func (e *Engine) explainAggregate(ctx context.Context, db, coll string, req AggregateRequest, v Verbosity) (bson.D, error) {
	if err := catalog.CheckReadNS(db, coll); err != nil {
		return nil, err
	}
	pl, err := e.parsePipeline(req, e.opts.Now())
	if err != nil {
		return nil, err
	}
	leading, rest := pl.LeadingMatch()
	cursor, err := e.explainFind(ctx, db, coll, FindRequest{Filter: leading, Hint: req.Hint}, v)
	if err != nil {
		return nil, err
	}
	stages := bson.A{bson.D{{Key: "$cursor", Value: cursor}}}
	stages = append(stages, rest.Spec()...)
	return bson.D{{Key: "stages", Value: stages}}, nil
}

// parsePipeline parses an aggregate request's pipeline.
func (e *Engine) parsePipeline(req AggregateRequest, now time.Time) (*aggregate.Pipeline, error) {
	arr := make(bson.A, len(req.Pipeline))
	for i, s := range req.Pipeline {
		arr[i] = s
	}
	names := make([]string, 0, len(req.Let))
	for _, l := range req.Let {
		names = append(names, l.Key)
	}
	return aggregate.Parse(arr, aggregate.Options{Vars: names, Now: now})
}

func (e *Engine) explainUpdate(ctx context.Context, db, coll string, st UpdateStatement, v Verbosity) (bson.D, error) {
	if err := catalog.CheckWriteNS(db, coll); err != nil {
		return nil, err
	}
	env := match.Env{Now: e.opts.Now()}
	f, err := match.ParseQuery(st.Filter, env)
	if err != nil {
		return nil, err
	}
	u, err := parseUpdate(st.Update, st.Pipeline, st.Multi, st.ArrayFilters, env)
	if err != nil {
		return nil, err
	}
	return e.explainWrite(ctx, db, coll, f, st.Hint, v, "UPDATE", func(m *plan.Matcher) (bson.D, error) {
		var matched, modified int64
		for {
			d, err := m.Next(ctx)
			if err != nil {
				return nil, err
			}
			if d == nil {
				break
			}
			matched++
			if _, changed, err := u.Apply(d.Stored.Doc, applyContext(env, d.Result, false, ctx)); err != nil {
				return nil, err
			} else if changed {
				modified++
			}
			if !st.Multi {
				break
			}
		}
		upsert := int32(0)
		if matched == 0 && st.Upsert {
			upsert = 1
		}
		return bson.D{
			{Key: "nMatched", Value: int32(matched)},
			{Key: "nWouldModify", Value: int32(modified)},
			{Key: "nWouldUpsert", Value: upsert},
		}, nil
	})
}

func (e *Engine) explainDelete(ctx context.Context, db, coll string, st DeleteStatement, v Verbosity) (bson.D, error) {
	if err := catalog.CheckWriteNS(db, coll); err != nil {
		return nil, err
	}
	if st.Limit != 0 && st.Limit != 1 {
		return nil, mongoerr.Newf(mongoerr.FailedToParse, "The limit field in delete objects must be 0 or 1. Got %d", st.Limit)
	}
	f, err := match.ParseQuery(st.Filter, match.Env{Now: e.opts.Now()})
	if err != nil {
		return nil, err
	}
	return e.explainWrite(ctx, db, coll, f, st.Hint, v, "DELETE", func(m *plan.Matcher) (bson.D, error) {
		var n int64
		for {
			d, err := m.Next(ctx)
			if err != nil {
				return nil, err
			}
			if d == nil {
				break
			}
			n++
			if st.Limit == 1 {
				break
			}
		}
		return bson.D{{Key: "nWouldDelete", Value: int32(n)}}, nil
	})
}

// explainWrite explains an update or delete without writing: the plan under
// a top stage, and with execution stats what the write would do (run reads
// the matches and returns the top stage's counters).
func (e *Engine) explainWrite(ctx context.Context, db, coll string, f *match.Filter, hint any, v Verbosity, top string, run func(*plan.Matcher) (bson.D, error)) (bson.D, error) {
	view := e.openRead(db, coll)
	defer view.close()
	if view.meta == nil {
		return missingExplain(db, coll, v), nil
	}
	p, err := plan.Choose(view.meta, plan.Request{Filter: f, Hint: hint})
	if err != nil {
		return nil, err
	}
	shape := plan.Shape{Top: top}
	out := bson.D{{Key: "queryPlanner", Value: plan.QueryPlanner(view.meta, db, coll, p, plan.Tree(p, shape, nil, 0))}}
	if v == QueryPlanner {
		return out, nil
	}
	start := time.Now()
	var st plan.Stats
	vis := e.newVisibility(view.meta)
	sc := plan.NewScanner(view.snap, p, &st)
	defer sc.Close()
	extra, err := run(&plan.Matcher{Scanner: sc, Vis: &vis, Stats: &st})
	if err != nil {
		return nil, err
	}
	st.Returned = st.Matched
	elapsed := time.Since(start)
	shape.TopExtra = extra
	out = append(out, bson.E{Key: "executionStats", Value: plan.ExecutionStats(&st, 0, elapsed, plan.Tree(p, shape, &st, elapsed))})
	return out, nil
}

// allPlans returns a function that adds executionStats.allPlansExecution
// (an empty list: mayfly plans one solution) to an explain result when the
// verbosity asks for it.
func allPlans(v Verbosity) func(bson.D, error) (bson.D, error) {
	return func(out bson.D, err error) (bson.D, error) {
		if err != nil || v != AllPlansExecution {
			return out, err
		}
		for i, e := range out {
			if es, ok := e.Value.(bson.D); ok && e.Key == "executionStats" {
				out[i].Value = append(es, bson.E{Key: "allPlansExecution", Value: bson.A{}})
			}
		}
		return out, nil
	}
}
