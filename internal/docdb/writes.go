package docdb

import (
	"context"
	"errors"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
	"github.com/mayfly/mayfly/internal/docdb/query"
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
func (e *Engine) lockForWrite(db, coll string, create bool) (*collection, error) {
	if create {
		c, _, err := e.lockOrCreateColl(db, coll)
		return c, err
	}
	return e.lockColl(db, coll), nil
}

// openMatches commits the writer's pending writes and opens a scan of the
// collection's current state for plan p.
func (w *writer) openMatches(p *plan) (*matcher, func(), error) {
	if err := w.commit(); err != nil {
		return nil, nil, err
	}
	snap := w.e.store.NewSnapshot()
	stats := &execStats{}
	sc := newScanner(snap, p, stats)
	vis := w.vis
	return &matcher{sc: sc, vis: &vis, stats: stats}, func() { sc.close(); snap.Close() }, nil
}

// parseUpdate parses the update of a statement.
func parseUpdate(upd bson.D, pipeline []bson.D, multi bool, arrayFilters []bson.D, env exprEnv) (*update.Update, error) {
	opts := update.Options{Multi: multi, ArrayFilters: arrayFilters, ExprCompiler: env.compiler()}
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
func applyContext(env exprEnv, m query.MatchResult, insert bool, ctx context.Context) update.ApplyContext {
	return update.ApplyContext{
		Insert:      insert,
		HasPosition: m.ArrayIndex >= 0,
		Position:    m.ArrayIndex,
		Now:         env.now,
		Vars:        env.vars(),
		Context:     ctx,
	}
}

// updatedDoc encodes the result of an update as the stored document,
// enforcing the size and nesting limits (mongod's messages for updates).
func (e *Engine) updatedDoc(d bson.D) (*storedDoc, error) {
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
	return newStoredDoc(raw)
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
	if err := checkWriteNS(db, coll); err != nil {
		return res, err
	}
	if err := checkBatchSize(len(req.Statements)); err != nil {
		return res, err
	}
	anyUpsert := false
	for _, st := range req.Statements {
		anyUpsert = anyUpsert || st.Upsert
	}
	c, err := e.lockForWrite(db, coll, anyUpsert)
	if err != nil {
		return res, err
	}
	if c == nil {
		// Nothing to update, but each statement's syntax is still checked.
		env := exprEnv{now: e.opts.Now(), let: req.Let}
		for i, st := range req.Statements {
			if err := checkUpdateStatement(st, env); err != nil {
				res.WriteErrors = append(res.WriteErrors, WriteError{Index: i, Err: err})
				if req.Ordered {
					break
				}
			}
		}
		return res, nil
	}
	defer c.wmu.Unlock()
	w := e.newWriter(c)
	defer w.close()
	val, err := e.newValidator(c.meta, req.BypassDocumentValidation)
	if err != nil {
		return res, err
	}
	env := exprEnv{now: e.opts.Now(), let: req.Let}
	for i, st := range req.Statements {
		if err := ctx.Err(); err != nil {
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
	return res, w.commit()
}

// checkUpdateStatement parses a statement's filter and update, for
// statements that have no collection to run on.
func checkUpdateStatement(st UpdateStatement, env exprEnv) error {
	if _, err := parseQuery(st.Filter, env); err != nil {
		return err
	}
	_, err := parseUpdate(st.Update, st.Pipeline, st.Multi, st.ArrayFilters, env)
	return err
}

// updateStatement runs one update statement; it returns the documents
// matched and modified and the _id of an upserted document.
func (w *writer) updateStatement(ctx context.Context, st UpdateStatement, val *validator, env exprEnv) (n, modified int64, upserted *bson.RawValue, err error) {
	f, err := parseQuery(st.Filter, env)
	if err != nil {
		return 0, 0, nil, err
	}
	u, err := parseUpdate(st.Update, st.Pipeline, st.Multi, st.ArrayFilters, env)
	if err != nil {
		return 0, 0, nil, err
	}
	p, err := choosePlan(w.meta, planRequest{filter: f, hint: st.Hint})
	if err != nil {
		return 0, 0, nil, err
	}
	m, done, err := w.openMatches(p)
	if err != nil {
		return 0, 0, nil, err
	}
	defer done()
	for {
		d, err := m.next(ctx)
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
	return 0, 0, &sd.id, nil
}

// applyUpdate applies u to a matched document and writes the result if it
// changed.
func (w *writer) applyUpdate(ctx context.Context, u *update.Update, d *matched, val *validator, env exprEnv) (bool, error) {
	out, changed, err := u.Apply(d.sd.doc, applyContext(env, d.m, false, ctx))
	if err != nil || !changed {
		return false, err
	}
	next, err := w.e.updatedDoc(out)
	if err != nil {
		return false, err
	}
	if err := val.check(next, d.sd); err != nil {
		return false, err
	}
	if err := w.replace(d.sd, next); err != nil {
		return false, err
	}
	return true, nil
}

// upsert inserts the document an upsert builds from the filter's
// equalities and the update.
func (w *writer) upsert(ctx context.Context, filterSpec bson.D, u *update.Update, val *validator, env exprEnv) (*storedDoc, error) {
	seed, err := update.UpsertSeed(filterSpec, u.Kind() == update.Replacement)
	if err != nil {
		return nil, err
	}
	out, _, err := u.Apply(seed, applyContext(env, query.MatchResult{ArrayIndex: -1}, true, ctx))
	if err != nil {
		return nil, err
	}
	if _, ok := fieldOf(out, "_id"); !ok {
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
	if err := w.insert(sd); err != nil {
		return nil, err
	}
	return sd, nil
}

func (e *Engine) delete(ctx context.Context, db, coll string, req DeleteRequest) (DeleteResult, error) {
	var res DeleteResult
	if err := checkWriteNS(db, coll); err != nil {
		return res, err
	}
	if err := checkBatchSize(len(req.Statements)); err != nil {
		return res, err
	}
	env := exprEnv{now: e.opts.Now(), let: req.Let}
	c := e.lockColl(db, coll)
	var w *writer
	if c != nil {
		defer c.wmu.Unlock()
		w = e.newWriter(c)
		defer w.close()
	}
	for i, st := range req.Statements {
		if err := ctx.Err(); err != nil {
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
		return res, w.commit()
	}
	return res, nil
}

// deleteStatement runs one delete statement (w is nil when the collection
// does not exist).
func (e *Engine) deleteStatement(ctx context.Context, w *writer, st DeleteStatement, env exprEnv) (int64, error) {
	if st.Limit != 0 && st.Limit != 1 {
		return 0, mongoerr.Newf(mongoerr.FailedToParse, "The limit field in delete objects must be 0 or 1. Got %d", st.Limit)
	}
	f, err := parseQuery(st.Filter, env)
	if err != nil || w == nil {
		return 0, err
	}
	p, err := choosePlan(w.meta, planRequest{filter: f, hint: st.Hint})
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
		d, err := m.next(ctx)
		if err != nil || d == nil {
			return n, err
		}
		if err := w.remove(d.sd); err != nil {
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
	var res FindAndModifyResult
	if err := checkWriteNS(db, coll); err != nil {
		return res, err
	}
	hasUpdate := req.Update != nil || req.Pipeline != nil
	switch {
	case req.Remove && hasUpdate:
		return res, mongoerr.New(mongoerr.FailedToParse, "Cannot specify both an update and remove=true")
	case req.Remove && req.Upsert:
		return res, mongoerr.New(mongoerr.FailedToParse, "Cannot specify both upsert=true and remove=true ")
	case req.Remove && req.New:
		return res, mongoerr.New(mongoerr.FailedToParse,
			"Cannot specify both new=true and remove=true; 'remove' always returns the deleted document")
	case !req.Remove && !hasUpdate:
		return res, mongoerr.New(mongoerr.FailedToParse, "Either an update or remove=true must be specified")
	}
	env := exprEnv{now: e.opts.Now(), let: req.Let}
	f, err := parseQuery(req.Query, env)
	if err != nil {
		return res, err
	}
	srt, natural, err := parseSort(req.Sort)
	if err != nil {
		return res, err
	}
	var proj *query.Projection
	if len(req.Fields) > 0 {
		if proj, err = parseProjection(req.Fields, env.now); err != nil {
			return res, err
		}
	}
	var u *update.Update
	if hasUpdate {
		if u, err = parseUpdate(req.Update, req.Pipeline, false, req.ArrayFilters, env); err != nil {
			return res, err
		}
	}
	c, err := e.lockForWrite(db, coll, req.Upsert)
	if err != nil || c == nil {
		return res, err
	}
	defer c.wmu.Unlock()
	w := e.newWriter(c)
	defer w.close()
	val, err := e.newValidator(c.meta, req.BypassDocumentValidation)
	if err != nil {
		return res, err
	}
	p, err := choosePlan(w.meta, planRequest{filter: f, sort: srt, hint: req.Hint, natural: natural})
	if err != nil {
		return res, err
	}
	d, err := w.firstMatch(ctx, p)
	if err != nil {
		return res, err
	}
	project := func(doc bson.D, m query.MatchResult) (bson.Raw, error) {
		if proj != nil {
			out, err := proj.Apply(doc, m)
			if err != nil {
				return nil, err
			}
			doc = out
		}
		return marshalDoc(doc)
	}
	switch {
	case d == nil && req.Upsert:
		sd, err := w.upsert(ctx, req.Query, u, val, env)
		if err != nil {
			return res, err
		}
		res.N = 1
		res.Upserted = sd.id
		if req.New {
			if res.Value, err = project(sd.doc, query.MatchResult{ArrayIndex: -1}); err != nil {
				return res, err
			}
		}
	case d == nil:
		if !req.Remove {
			res.UpdatedExisting = false
		}
	case req.Remove:
		if err := w.remove(d.sd); err != nil {
			return res, err
		}
		res.N = 1
		if res.Value, err = project(d.sd.doc, d.m); err != nil {
			return res, err
		}
	default:
		res.N = 1
		res.UpdatedExisting = true
		out, changed, err := u.Apply(d.sd.doc, applyContext(env, d.m, false, ctx))
		if err != nil {
			return res, err
		}
		after := d.sd
		if changed {
			next, err := e.updatedDoc(out)
			if err != nil {
				return res, err
			}
			if err := val.check(next, d.sd); err != nil {
				return res, err
			}
			if err := w.replace(d.sd, next); err != nil {
				return res, err
			}
			after = next
		}
		shown := d.sd.doc
		if req.New {
			shown = after.doc
		}
		if res.Value, err = project(shown, d.m); err != nil {
			return res, err
		}
	}
	return res, w.commit()
}

// firstMatch returns the first document of plan p in its sort order, or
// nil.
func (w *writer) firstMatch(ctx context.Context, p *plan) (*matched, error) {
	m, done, err := w.openMatches(p)
	if err != nil {
		return nil, err
	}
	defer done()
	if p.sort == nil || p.sort.Empty() || p.sortProvided {
		return m.next(ctx)
	}
	var best *matched
	var bestKey []any
	for {
		d, err := m.next(ctx)
		if err != nil {
			return nil, err
		}
		if d == nil {
			return best, nil
		}
		k := p.sort.KeyOf(d.sd.doc)
		if best == nil || p.sort.CompareKeys(k, bestKey) < 0 {
			best, bestKey = d, k
		}
	}
}
