package docdb

import (
	"context"
	"errors"
	"fmt"
	"io"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/catalog"
	"github.com/mayfly/mayfly/internal/docdb/query"
	"github.com/mayfly/mayfly/internal/docdb/stored"
	"github.com/mayfly/mayfly/internal/keycodec"
	"github.com/mayfly/mayfly/internal/storage"
)

// A find whose filter is {_id: v} for a plain value v, with no sort, hint
// or skip, can match at most the one document stored under v's encoding:
// the planner would scan the _id index over the single point [v, v]. The
// point read fetches that document with one storage Get (the store's bloom
// filters make a miss cheap) instead of taking a snapshot and opening an
// iterator, which dominated the cost of a driver's findOne by _id.
//
// Everything after the fetch is the general path's: the document is
// matched against the whole filter, hidden when expired (strict
// visibility, re-evaluated when the cursor is read, as findCursor does),
// and projected. explain keeps showing the general plan, which is what the
// point read computes.

// pointID returns v when filter is exactly {_id: v} and v is a value that
// equality matches only through the _id index's point: not an operator
// document, an embedded document, an array, a regular expression, null,
// MinKey, MaxKey or undefined, whose matching rules go beyond equal keys.
func pointID(filter bson.D) (any, bool) {
	if len(filter) != 1 || filter[0].Key != "_id" {
		return nil, false
	}
	switch v := filter[0].Value.(type) {
	case int32, int64, float64, string, bool, bson.ObjectID, bson.DateTime, bson.Timestamp, bson.Binary, bson.Decimal128:
		return v, true
	}
	return nil, false
}

// collatedString reports whether id is a string compared under a
// collation, which a point read (by the _id's binary encoding) cannot
// answer.
func collatedString(id any, collation bson.D) bool {
	_, isString := id.(string)
	return isString && len(collation) > 0
}

// pointEligible reports whether q can be answered by a point read of _id
// v: no sort (or {$natural} order), hint or skip, which the general path
// must validate or apply.
func (q *findQuery) pointEligible() bool {
	return q.sort == nil && q.natural == 0 && q.hint == nil && q.skip == 0
}

// findPoint answers req, whose filter is {_id: id}, with one Get. ok is
// false when the general path must answer: req has a sort, hint or skip,
// or id cannot be encoded as a key. The filter is not parsed: a document
// matches it exactly when its _id equals id in MongoDB's comparison,
// which the cursor checks.
func (e *Engine) findPoint(db, coll string, id any, req FindRequest) (cur Cursor, ok bool, err error) {
	req.Filter = nil
	q, err := e.parseFind(req)
	if err != nil {
		return nil, true, err
	}
	if !q.pointEligible() {
		return nil, false, nil
	}
	idEnc, err := keycodec.AppendValue(nil, id, false)
	if err != nil {
		return nil, false, nil
	}
	meta, raw, err := e.getByID(db, coll, idEnc)
	if err != nil {
		return nil, true, err
	}
	if meta == nil {
		return emptyCursor{}, true, nil
	}
	if raw == nil {
		return &pointCursor{e: e, q: q, id: id}, true, nil
	}
	doc, err := stored.Decode(raw)
	if err != nil {
		return nil, true, fmt.Errorf("docdb: stored document: %w", err)
	}
	// The cursor reads only the bytes and the decoded form.
	sd := &stored.Doc{Raw: raw, Doc: doc}
	return &pointCursor{e: e, q: q, id: id, sd: sd, vis: e.newVisibility(meta)}, true, nil
}

// getByID reads the stored document of db.coll with encoded _id idEnc,
// with the collection's metadata looked up under the same read lock (as
// openRead takes its snapshot). meta is nil when the collection does not
// exist, raw nil when the document does not.
func (e *Engine) getByID(db, coll string, idEnc []byte) (meta *catalog.CollMeta, raw bson.Raw, err error) {
	e.mu.RLock()
	defer e.mu.RUnlock()
	c := e.cat.Lookup(db, coll)
	if c == nil {
		return nil, nil, nil
	}
	v, err := e.store.Get(catalog.DocKey(c.Meta.ID, idEnc))
	if errors.Is(err, storage.ErrNotFound) {
		return c.Meta, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	return c.Meta, v, nil
}

// pointCursor yields the one document of a point read, if it is visible
// and matches when read.
type pointCursor struct {
	e *Engine
	q *findQuery
	// id is the _id the filter asks for.
	id any
	// sd is the document stored under the _id; nil when there is none.
	sd     *stored.Doc
	vis    visibility
	done   bool
	closed bool
}

// Finished implements Finisher: the one document was read.
func (c *pointCursor) Finished() bool { return c.closed || c.done || c.sd == nil }

// Next implements Cursor.
func (c *pointCursor) Next(ctx context.Context) (bson.Raw, error) {
	if c.closed {
		return nil, ErrCursorClosed
	}
	if c.done || c.sd == nil {
		return nil, io.EOF
	}
	c.done = true
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	c.vis.refresh(c.e.opts.Now())
	if c.vis.Hides(c.sd.Doc) {
		return nil, io.EOF
	}
	if !c.matches() {
		return nil, io.EOF
	}
	if c.q.returnKey || c.q.showRecordID {
		doc := c.sd.Doc
		if c.q.proj != nil && !c.q.returnKey {
			var err error
			if doc, err = c.q.proj.Apply(doc, query.MatchResult{Matched: true, ArrayIndex: -1}); err != nil {
				return nil, err
			}
		}
		return marshalDoc(keyOutput(c.q, c.sd, doc, &catalog.IndexMeta{Key: bson.D{{Key: "_id", Value: int32(1)}}}))
	}
	if c.q.proj == nil {
		return c.sd.Raw, nil
	}
	// The match went through no array: positional projections have no
	// position, as with the general path's filter.
	out, err := c.q.proj.Apply(c.sd.Doc, query.MatchResult{Matched: true, ArrayIndex: -1})
	if err != nil {
		return nil, err
	}
	return marshalDoc(out)
}

// matches reports whether the document's _id equals the one asked for,
// as {_id: id} matches: by MongoDB's comparison (numbers by value across
// types), which the key encoding agrees with, so this only guards it.
func (c *pointCursor) matches() bool {
	for _, el := range c.sd.Doc {
		if el.Key == "_id" {
			return query.Compare(el.Value, c.id) == 0
		}
	}
	return false
}

// Close implements Cursor.
func (c *pointCursor) Close() {
	c.closed = true
	c.sd = nil
}
