package docdb

import (
	"context"
	"errors"
	"slices"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/catalog"
	"github.com/mayfly/mayfly/internal/docdb/match"
	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
	"github.com/mayfly/mayfly/internal/docdb/plan"
	"github.com/mayfly/mayfly/internal/docdb/query"
	"github.com/mayfly/mayfly/internal/docdb/stored"
	"github.com/mayfly/mayfly/internal/docdb/update"
)

// Update, delete and findAndModify. Each runs under the collection's write
// lock; each statement plans its filter like a find and scans a snapshot of
// the collection taken when the statement starts (after the previous
// statements' writes), so a multi-update never meets a document it has
// already moved. Every document write is atomic with its index entries.
// Expired documents are invisible to the matching (strict visibility).

// lockForWrite returns db.coll locked for writing; create says whether a
// missing collection is created (upserts) or nil is returned.
func (e *Engine) lockForWrite(db, coll string, create bool) (*catalog.Collection, error) {
	if create {
		c, _, err := e.lockOrCreateColl(db, coll)
		return c, err
	}
	return e.lockColl(db, coll), nil
}

// lockForWriteIn is lockForWrite as seen from ctx (txn_ddl.go).
func (e *Engine) lockForWriteIn(ctx context.Context, db, coll string, create bool) (*catalog.Collection, error) {
	if txnOf(ctx) == nil {
		return e.lockForWrite(db, coll, create)
	}
	if create {
		c, _, err := e.lockOrCreateCollIn(ctx, db, coll)
		return c, err
	}
	return e.lockCollIn(ctx, db, coll), nil
}

// openMatches commits the writer's pending writes and opens a scan of the
// collection's current state for plan p. A writer that keeps its whole
// write in one batch (a retryable write, a transaction's statement)
// commits nothing: it scans its batch, which shows its own writes as they
// were when the scan opened.
func (w *writer) openMatches(p *plan.Plan) (*plan.Matcher, func(), error) {
	if w.atOnce {
		if w.txn != nil {
			w.txn.absorb(w)
		}
		stats := &plan.Stats{}
		sc := plan.NewScanner(w.b, p, stats)
		vis := w.vis
		return &plan.Matcher{Scanner: sc, Vis: &vis, Stats: stats}, func() { sc.Close() }, nil
	}
	if err := w.commit(); err != nil {
		return nil, nil, err
	}
	snap := w.e.store.NewSnapshot()
	stats := &plan.Stats{}
	sc := plan.NewScanner(snap, p, stats)
	vis := w.vis
	return &plan.Matcher{Scanner: sc, Vis: &vis, Stats: stats}, func() { sc.Close(); snap.Close() }, nil
}

// parseUpdate parses the update of a statement.
func parseUpdate(upd bson.D, pipeline []bson.D, multi bool, arrayFilters []bson.D, env match.Env) (*update.Update, error) {
	opts := update.Options{Multi: multi, ArrayFilters: arrayFilters, ExprCompiler: env.Compiler(), Vars: env.Names()}
	if pipeline != nil {
		arr := make(bson.A, len(pipeline))
		for i, s := range pipeline {
			arr[i] = s
		}
		return update.Parse(arr, opts)
	}
	if upd == nil {
		upd = bson.D{}
	}
	return update.Parse(upd, opts)
}

// applyContext builds the context of one update application.
func applyContext(env match.Env, m query.MatchResult, insert bool, ctx context.Context) update.ApplyContext {
	return update.ApplyContext{
		Insert:      insert,
		HasPosition: m.ArrayIndex >= 0,
		Position:    m.ArrayIndex,
		Now:         env.Now,
		Vars:        env.Vars(),
		Context:     ctx,
	}
}

// updatedDoc encodes the result of an update as the stored document,
// enforcing the size and nesting limits (mongod's messages for updates).
func (e *Engine) updatedDoc(d bson.D) (*stored.Doc, error) {
	d = idFirst(d)
	raw, err := marshalDoc(d)
	if err != nil {
		return nil, err
	}
	if len(raw) > e.opts.MaxDocumentSize {
		return nil, mongoerr.Newf(mongoerr.BSONObjectTooLarge,
			"Resulting document after update is larger than %d", e.opts.MaxDocumentSize)
	}
	if err := checkUpdateDepth(raw); err != nil {
		return nil, err
	}
	return stored.New(raw)
}

// idFirst moves _id to the front of d.
func idFirst(d bson.D) bson.D {
	for i, el := range d {
		if el.Key == "_id" {
			if i == 0 {
				return d
			}
			out := make(bson.D, 0, len(d))
			out = append(out, el)
			out = append(out, d[:i]...)
			return append(out, d[i+1:]...)
		}
	}
	return d
}

func (e *Engine) update(ctx context.Context, db, coll string, req UpdateRequest) (UpdateResult, error) {
	var res UpdateResult
	if err := catalog.CheckWriteNS(db, coll); err != nil {
		return res, err
	}
	req.Statements = slices.Clone(req.Statements)
	for i := range req.Statements {
		req.Statements[i].Collation = e.collationOr(ctx, db, coll, req.Statements[i].Collation)
	}
	env, err := match.NewEnv(e.opts.Now(), req.Let)
	if err != nil {
		return res, err
	}
	anyUpsert := false
	for _, st := range req.Statements {
		anyUpsert = anyUpsert || st.Upsert
	}
	if len(req.Statements) == 1 && !req.Statements[0].Multi && e.groupWrites(ctx) {
		return e.updateGrouped(ctx, db, coll, req, env)
	}
	c, err := e.lockForWriteIn(ctx, db, coll, anyUpsert)
	if err != nil {
		return res, err
	}
	if c == nil {
		// Nothing to update, but each statement's syntax is still checked.
		for i, st := range req.Statements {
			if err := checkUpdateStatement(st, env); err != nil {
				res.WriteErrors = append(res.WriteErrors, WriteError{Index: i, Err: err})
				if req.Ordered {
					break
				}
			}
		}
		return res, e.recordRetryAlone(req.Retryable, res)
	}
	defer c.WriteMu.Unlock()
	w := e.newWriterIn(ctx, c)
	defer w.close()
	w.atOnce = w.atOnce || req.Retryable != nil
	val, err := e.newValidator(c.Meta, req.BypassDocumentValidation)
	if err != nil {
		return res, err
	}
	for i, st := range req.Statements {
		if err := ctx.Err(); err != nil {
			if w.atOnce {
				return UpdateResult{}, err
			}
			return res, errors.Join(err, w.commit())
		}
		n, mod, up, err := w.updateStatement(ctx, st, val, env)
		res.N += n
		res.NModified += mod
		if up != nil {
			res.N++
			res.Upserted = append(res.Upserted, Upserted{Index: i, ID: *up})
		}
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
	if err := w.recordRetry(req.Retryable, res); err != nil {
		return res, err
	}
	return res, w.commit()
}

// updateGrouped runs an update of one statement of one document through
// the namespace's write group (group.go). An update of every match is not
// grouped, as a delete of every match is not (deleteGrouped).
func (e *Engine) updateGrouped(ctx context.Context, db, coll string, req UpdateRequest, env match.Env) (UpdateResult, error) {
	var res UpdateResult
	st := req.Statements[0]
	gw := &groupedWrite{create: st.Upsert, waitTxns: waitsForTxns(ctx), run: func(w *writer) error {
		if w == nil {
			if err := checkUpdateStatement(st, env); err != nil {
				res.WriteErrors = append(res.WriteErrors, WriteError{Index: 0, Err: err})
			}
			return e.recordRetryAlone(req.Retryable, res)
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		val, err := e.newValidator(w.meta, req.BypassDocumentValidation)
		if err != nil {
			return err
		}
		n, mod, up, err := w.updateStatement(ctx, st, val, env)
		res.N, res.NModified = n, mod
		if up != nil {
			res.N++
			res.Upserted = append(res.Upserted, Upserted{Index: 0, ID: *up})
		}
		if err != nil {
			if _, ok := mongoerr.As(err); !ok {
				return err
			}
			res.WriteErrors = append(res.WriteErrors, WriteError{Index: 0, Err: err})
		}
		return w.recordRetry(req.Retryable, res)
	}}
	if err := e.runGrouped(db, coll, gw); err != nil {
		return UpdateResult{}, err
	}
	return res, nil
}

// checkUpdateStatement parses a statement's filter and update, for
// statements that have no collection to run on.
func checkUpdateStatement(st UpdateStatement, env match.Env) error {
	env, err := env.WithCollation(st.Collation)
	if err != nil {
		return err
	}
	if _, err := match.ParseQuery(st.Filter, env); err != nil {
		return err
	}
	_, err = parseUpdate(st.Update, st.Pipeline, st.Multi, st.ArrayFilters, env)
	return err
}

// updateStatement runs one update statement; it returns the documents
// matched and modified and the _id of an upserted document.
func (w *writer) updateStatement(ctx context.Context, st UpdateStatement, val *validator, env match.Env) (n, modified int64, upserted *bson.RawValue, err error) {
	if env, err = env.WithCollation(st.Collation); err != nil {
		return 0, 0, nil, err
	}
	f, err := match.ParseQuery(st.Filter, env)
	if err != nil {
		return 0, 0, nil, err
	}
	u, err := parseUpdate(st.Update, st.Pipeline, st.Multi, st.ArrayFilters, env)
	if err != nil {
		return 0, 0, nil, err
	}
	p, err := plan.Choose(w.meta, plan.Request{Filter: f, Hint: st.Hint})
	if err != nil {
		return 0, 0, nil, err
	}
	m, done, err := w.openMatches(p)
	if err != nil {
		return 0, 0, nil, err
	}
	defer done()
	for {
		d, err := m.Next(ctx)
		if err != nil {
			return n, modified, nil, err
		}
		if d == nil {
			break
		}
		n++
		changed, err := w.applyUpdate(ctx, u, d, val, env)
		if err != nil {
			return n, modified, nil, err
		}
		if changed {
			modified++
		}
		if !st.Multi {
			break
		}
		if w.full() {
			if err := w.commit(); err != nil {
				return n, modified, nil, err
			}
		}
	}
	if n > 0 || !st.Upsert {
		return n, modified, nil, nil
	}
	sd, err := w.upsert(ctx, st.Filter, u, val, env)
	if err != nil {
		return 0, 0, nil, err
	}
	return 0, 0, &sd.ID, nil
}

// applyUpdate applies u to a matched document and writes the result if it
// changed.
func (w *writer) applyUpdate(ctx context.Context, u *update.Update, d *plan.Matched, val *validator, env match.Env) (bool, error) {
	out, changed, err := u.Apply(d.Stored.Doc, applyContext(env, d.Result, false, ctx))
	if err != nil || !changed {
		return false, err
	}
	next, err := w.e.updatedDoc(out)
	if err != nil {
		return false, err
	}
	if err := val.check(next, d.Stored); err != nil {
		return false, err
	}
	replaceFn := w.replace
	if u.Kind() == update.Replacement {
		replaceFn = w.replaceWhole
	}
	if err := replaceFn(d.Stored, next); err != nil {
		return false, err
	}
	return true, nil
}

// upsert inserts the document an upsert builds from the filter's
// equalities and the update.
func (w *writer) upsert(ctx context.Context, filterSpec bson.D, u *update.Update, val *validator, env match.Env) (*stored.Doc, error) {
	sd, err := w.upserted(ctx, filterSpec, u, val, env)
	if err != nil {
		return nil, err
	}
	if err := w.insert(sd); err != nil {
		return nil, err
	}
	return sd, nil
}

// upserted builds and validates the document an upsert inserts, without
// writing it.
func (w *writer) upserted(ctx context.Context, filterSpec bson.D, u *update.Update, val *validator, env match.Env) (*stored.Doc, error) {
	seed, err := update.UpsertSeed(filterSpec, u.Kind() == update.Replacement)
	if err != nil {
		return nil, err
	}
	out, _, err := u.Apply(seed, applyContext(env, query.MatchResult{ArrayIndex: -1}, true, ctx))
	if err != nil {
		return nil, err
	}
	if _, ok := catalog.FieldOf(out, "_id"); !ok {
		out = append(bson.D{{Key: "_id", Value: bson.NewObjectID()}}, out...)
	}
	raw, err := marshalDoc(idFirst(out))
	if err != nil {
		return nil, err
	}
	if err := checkUpdateDepth(raw); err != nil {
		return nil, err
	}
	sd, err := w.e.prepareInsert(raw)
	if err != nil {
		return nil, err
	}
	if err := val.check(sd, nil); err != nil {
		return nil, err
	}
	return sd, nil
}

func (e *Engine) delete(ctx context.Context, db, coll string, req DeleteRequest) (DeleteResult, error) {
	var res DeleteResult
	if err := catalog.CheckWriteNS(db, coll); err != nil {
		return res, err
	}
	req.Statements = slices.Clone(req.Statements)
	for i := range req.Statements {
		req.Statements[i].Collation = e.collationOr(ctx, db, coll, req.Statements[i].Collation)
	}
	env, err := match.NewEnv(e.opts.Now(), req.Let)
	if err != nil {
		return res, err
	}
	if len(req.Statements) == 1 && req.Statements[0].Limit == 1 && e.groupWrites(ctx) {
		return e.deleteGrouped(ctx, db, coll, req, env)
	}
	c := e.lockCollIn(ctx, db, coll)
	var w *writer
	if c != nil {
		defer c.WriteMu.Unlock()
		w = e.newWriterIn(ctx, c)
		defer w.close()
		w.atOnce = w.atOnce || req.Retryable != nil
	}
	for i, st := range req.Statements {
		if err := ctx.Err(); err != nil {
			if req.Retryable != nil {
				return DeleteResult{}, err
			}
			if w != nil {
				err = errors.Join(err, w.commit())
			}
			return res, err
		}
		n, err := e.deleteStatement(ctx, w, st, env)
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
	if w != nil {
		if err := w.recordRetry(req.Retryable, res); err != nil {
			return res, err
		}
		return res, w.commit()
	}
	return res, e.recordRetryAlone(req.Retryable, res)
}

// deleteGrouped runs a delete of one statement of limit 1 through the
// namespace's write group (group.go). A delete of every match is not
// grouped: its writer commits the deletions in batches of a bounded size,
// and a group keeps its writes in one.
func (e *Engine) deleteGrouped(ctx context.Context, db, coll string, req DeleteRequest, env match.Env) (DeleteResult, error) {
	var res DeleteResult
	gw := &groupedWrite{waitTxns: waitsForTxns(ctx), run: func(w *writer) error {
		if w != nil {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		n, err := e.deleteStatement(ctx, w, req.Statements[0], env)
		res.N = n
		if err != nil {
			if _, ok := mongoerr.As(err); !ok {
				return err
			}
			res.WriteErrors = append(res.WriteErrors, WriteError{Index: 0, Err: err})
		}
		if w == nil {
			return e.recordRetryAlone(req.Retryable, res)
		}
		return w.recordRetry(req.Retryable, res)
	}}
	if err := e.runGrouped(db, coll, gw); err != nil {
		return DeleteResult{}, err
	}
	return res, nil
}

// deleteStatement runs one delete statement (w is nil when the collection
// does not exist).
func (e *Engine) deleteStatement(ctx context.Context, w *writer, st DeleteStatement, env match.Env) (int64, error) {
	env, err := env.WithCollation(st.Collation)
	if err != nil {
		return 0, err
	}
	if st.Limit != 0 && st.Limit != 1 {
		return 0, mongoerr.Newf(mongoerr.FailedToParse, "The limit field in delete objects must be 0 or 1. Got %d", st.Limit)
	}
	f, err := match.ParseQuery(st.Filter, env)
	if err != nil || w == nil {
		return 0, err
	}
	p, err := plan.Choose(w.meta, plan.Request{Filter: f, Hint: st.Hint})
	if err != nil {
		return 0, err
	}
	m, done, err := w.openMatches(p)
	if err != nil {
		return 0, err
	}
	defer done()
	var n int64
	for {
		d, err := m.Next(ctx)
		if err != nil || d == nil {
			return n, err
		}
		if err := w.remove(d.Stored); err != nil {
			return n, err
		}
		n++
		if st.Limit == 1 {
			return n, nil
		}
		if w.full() {
			if err := w.commit(); err != nil {
				return n, err
			}
		}
	}
}

func (e *Engine) findAndModify(ctx context.Context, db, coll string, req FindAndModifyRequest) (FindAndModifyResult, error) {
	req.Collation = e.collationOr(ctx, db, coll, req.Collation)
	var res FindAndModifyResult
	if err := catalog.CheckWriteNS(db, coll); err != nil {
		return res, err
	}
	env, err := match.NewEnv(e.opts.Now(), req.Let)
	if err != nil {
		return res, err
	}
	fm, err := compileFindAndModify(req, env)
	if err != nil {
		return res, err
	}
	if e.groupWrites(ctx) {
		return e.findAndModifyGrouped(ctx, db, coll, fm)
	}
	c, err := e.lockForWriteIn(ctx, db, coll, req.Upsert)
	if err != nil {
		return res, err
	}
	if c == nil {
		return res, e.recordRetryAlone(req.Retryable, res)
	}
	defer c.WriteMu.Unlock()
	w := e.newWriterIn(ctx, c)
	defer w.close()
	if res, err = fm.run(ctx, w); err != nil {
		return res, err
	}
	if err := w.recordRetry(req.Retryable, res); err != nil {
		return res, err
	}
	return res, w.commit()
}

// findAndModifyGrouped runs a findAndModify through the namespace's write
// group (group.go), as updateOne and deleteOne run. Its own error (a
// duplicate key, a failed validation) comes before it writes into the
// batch, so the group returns it to this write alone.
func (e *Engine) findAndModifyGrouped(ctx context.Context, db, coll string, fm *findAndModify) (FindAndModifyResult, error) {
	var res FindAndModifyResult
	gw := &groupedWrite{create: fm.req.Upsert, waitTxns: waitsForTxns(ctx), run: func(w *writer) error {
		if w == nil {
			return e.recordRetryAlone(fm.req.Retryable, res)
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		var err error
		if res, err = fm.run(ctx, w); err != nil {
			return err
		}
		return w.recordRetry(fm.req.Retryable, res)
	}}
	if err := e.runGrouped(db, coll, gw); err != nil {
		return FindAndModifyResult{}, err
	}
	return res, nil
}

// run finds the first document the command matches in w's collection and
// removes, updates or upserts it into w's batch.
func (fm *findAndModify) run(ctx context.Context, w *writer) (FindAndModifyResult, error) {
	var res FindAndModifyResult
	val, err := w.e.newValidator(w.meta, fm.req.BypassDocumentValidation)
	if err != nil {
		return res, err
	}
	p, err := plan.Choose(w.meta, plan.Request{Filter: fm.filter, Sort: fm.sort, Hint: fm.req.Hint, Natural: fm.natural})
	if err != nil {
		return res, err
	}
	d, err := w.firstMatch(ctx, p)
	if err != nil {
		return res, err
	}
	switch {
	case d == nil && fm.req.Upsert:
		res, err = fm.upsert(ctx, w, val)
	case d == nil:
	case fm.req.Remove:
		res, err = fm.remove(w, d)
	default:
		res, err = fm.update(ctx, w, val, d)
	}
	return res, err
}

// findAndModify is a findAndModify command with its query, sort,
// projection and update compiled.
type findAndModify struct {
	req     FindAndModifyRequest
	env     match.Env
	filter  *match.Filter
	sort    *query.Sort
	natural int
	proj    *query.Projection
	upd     *update.Update // nil for remove
}

// compileFindAndModify compiles req's query, sort, fields and update.
func compileFindAndModify(req FindAndModifyRequest, env match.Env) (*findAndModify, error) {
	env, err := env.WithCollation(req.Collation)
	if err != nil {
		return nil, err
	}
	fm := &findAndModify{req: req, env: env}
	if fm.filter, err = match.ParseQuery(req.Query, env); err != nil {
		return nil, err
	}
	if fm.sort, fm.natural, err = parseSort(req.Sort); err != nil {
		return nil, err
	}
	if len(req.Fields) > 0 {
		if fm.proj, err = parseProjection(req.Fields, env); err != nil {
			return nil, err
		}
	}
	if req.Update != nil || req.Pipeline != nil {
		if fm.upd, err = parseUpdate(req.Update, req.Pipeline, false, req.ArrayFilters, env); err != nil {
			return nil, err
		}
	}
	return fm, nil
}

// project returns doc as the reply's value: projected by fields, if given.
func (fm *findAndModify) project(doc bson.D, m query.MatchResult) (bson.Raw, error) {
	if fm.proj != nil {
		out, err := fm.proj.Apply(doc, m)
		if err != nil {
			return nil, err
		}
		doc = out
	}
	return marshalDoc(doc)
}

// upsert inserts the document built from the query and the update, when
// nothing matched.
func (fm *findAndModify) upsert(ctx context.Context, w *writer, val *validator) (FindAndModifyResult, error) {
	var res FindAndModifyResult
	sd, err := w.upserted(ctx, fm.req.Query, fm.upd, val, fm.env)
	if err != nil {
		return res, err
	}
	if fm.req.New {
		if res.Value, err = fm.project(sd.Doc, query.MatchResult{ArrayIndex: -1}); err != nil {
			return res, err
		}
	}
	if err := w.insert(sd); err != nil {
		return FindAndModifyResult{}, err
	}
	res.N = 1
	res.Upserted = sd.ID
	return res, nil
}

// remove deletes the matched document d and returns it.
func (fm *findAndModify) remove(w *writer, d *plan.Matched) (FindAndModifyResult, error) {
	var res FindAndModifyResult
	value, err := fm.project(d.Stored.Doc, d.Result)
	if err != nil {
		return res, err
	}
	if err := w.remove(d.Stored); err != nil {
		return res, err
	}
	res.N, res.Value = 1, value
	return res, nil
}

// update applies the update to the matched document d and returns it as
// it was before, or after with New.
func (fm *findAndModify) update(ctx context.Context, w *writer, val *validator, d *plan.Matched) (FindAndModifyResult, error) {
	var res FindAndModifyResult
	out, changed, err := fm.upd.Apply(d.Stored.Doc, applyContext(fm.env, d.Result, false, ctx))
	if err != nil {
		return res, err
	}
	after := d.Stored
	if changed {
		if after, err = w.e.updatedDoc(out); err != nil {
			return res, err
		}
		if err := val.check(after, d.Stored); err != nil {
			return res, err
		}
	}
	shown := d.Stored.Doc
	if fm.req.New {
		shown = after.Doc
	}
	value, err := fm.project(shown, d.Result)
	if err != nil {
		return res, err
	}
	if changed {
		replaceFn := w.replace
		if fm.upd.Kind() == update.Replacement {
			replaceFn = w.replaceWhole
		}
		if err := replaceFn(d.Stored, after); err != nil {
			return res, err
		}
	}
	return FindAndModifyResult{N: 1, UpdatedExisting: true, Value: value}, nil
}

// firstMatch returns the first document of plan p in its sort order, or
// nil.
func (w *writer) firstMatch(ctx context.Context, p *plan.Plan) (*plan.Matched, error) {
	m, done, err := w.openMatches(p)
	if err != nil {
		return nil, err
	}
	defer done()
	if p.Sort == nil || p.Sort.Empty() || p.SortProvided {
		return m.Next(ctx)
	}
	var best *plan.Matched
	var bestKey []any
	for {
		d, err := m.Next(ctx)
		if err != nil {
			return nil, err
		}
		if d == nil {
			return best, nil
		}
		k := p.Sort.KeyOf(d.Stored.Doc)
		if best == nil || p.Sort.CompareKeys(k, bestKey) < 0 {
			best, bestKey = d, k
		}
	}
}
