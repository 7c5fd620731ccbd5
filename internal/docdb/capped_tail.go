package docdb

import (
	"context"
	"errors"
	"io"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/aggregate"
	"github.com/mayfly/mayfly/internal/docdb/catalog"
	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
	"github.com/mayfly/mayfly/internal/docdb/plan"
	"github.com/mayfly/mayfly/internal/storage"
)

// Tailable cursors on capped collections.
//
// Rules:
//   - A tailable cursor scans the collection in natural order. Reaching
//     the end does not end it: each later Next opens a fresh snapshot and
//     resumes the scan past the last natural-order entry it passed
//     (matching or not).
//   - If that entry is gone when it resumes (capping removed it, or it
//     was deleted), the cursor fails with CappedPositionLost, as MongoDB's
//     collection scan does.
//   - Wait blocks until a commit appends to the collection (the writer
//     tells appendWaiters after it commits) or the time is up; it never
//     polls.
//   - A tailable find on a collection that has no documents gives a cursor
//     that is exhausted at once (Empty), as MongoDB does not keep such a
//     cursor.

// appendWaiters wakes the tailable cursors of a capped collection when a
// commit appends to it. For each collection it keeps a version, bumped at
// each such commit, and a channel closed at the next one.
type appendWaiters struct {
	mu      sync.Mutex
	version map[uint64]uint64
	ch      map[uint64]chan struct{}
}

// changed returns the collection's version and a channel closed when it
// next changes.
func (a *appendWaiters) changed(collID uint64) (<-chan struct{}, uint64) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.ch == nil {
		a.ch, a.version = map[uint64]chan struct{}{}, map[uint64]uint64{}
	}
	ch := a.ch[collID]
	if ch == nil {
		ch = make(chan struct{})
		a.ch[collID] = ch
	}
	return ch, a.version[collID]
}

// appended records a commit that appended to the collection.
func (a *appendWaiters) appended(collID uint64) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.ch == nil {
		a.ch, a.version = map[uint64]chan struct{}{}, map[uint64]uint64{}
	}
	a.version[collID]++
	if ch := a.ch[collID]; ch != nil {
		close(ch)
		delete(a.ch, collID)
	}
}

// cappedCommitted tells the tailable cursors that the batch just committed
// appended to the collection.
func (w *writer) cappedCommitted() {
	if w.capped != nil && w.capped.oldest > 0 {
		w.c.OldestNatural = w.capped.oldest
		w.capped.oldest = 0
	}
	if w.capped != nil && w.capped.appended {
		w.capped.appended = false
		w.e.tails.appended(w.meta.ID)
	}
}

// TailCursor is a tailable cursor on a capped collection.
type TailCursor struct {
	e        *Engine
	db, coll string
	collID   uint64
	q        *findQuery
	await    bool
	empty    bool
	// pass is the scan of the current snapshot; nil between passes.
	pass *findCursor
	// version is the collection's append version when pass was opened.
	version uint64
	// last is the sequence of the last natural-order entry scanned.
	last   uint64
	passes int
	closed bool
}

func (e *Engine) findTailable(ctx context.Context, db, coll string, req FindRequest, awaitData bool) (*TailCursor, error) {
	if err := catalog.CheckReadNS(db, coll); err != nil {
		return nil, err
	}
	q, err := e.parseFind(req)
	if err != nil {
		return nil, err
	}
	view := e.openRead(db, coll)
	view.close()
	if view.meta == nil {
		return &TailCursor{e: e, empty: true, closed: true}, nil
	}
	if _, ok := view.meta.Capped(); !ok {
		return nil, mongoerr.Newf(mongoerr.BadValue,
			"error processing query: %s tailable cursor requested on non capped collection", queryString(view.meta, req))
	}
	t := &TailCursor{e: e, db: db, coll: coll, collID: view.meta.ID, q: q, await: awaitData}
	if c := e.lookupColl(db, coll); c != nil {
		docs, _, _ := c.Stats.Snapshot()
		t.empty = docs == 0
	}
	return t, nil
}

// queryString is MongoDB's rendering of a query in error messages.
func queryString(m *catalog.CollMeta, req FindRequest) string {
	tree := "$and"
	if len(req.Filter) > 0 {
		tree = aggregate.FormatValue(req.Filter)
	}
	srt := "{}"
	if len(req.Sort) > 0 {
		srt = aggregate.FormatValue(req.Sort)
	}
	proj := "{}"
	if len(req.Projection) > 0 {
		proj = aggregate.FormatValue(req.Projection)
	}
	return "ns=" + m.DB + "." + m.Name + "Tree: " + tree + "\nSort: " + srt + "\nProj: " + proj + "\n"
}

// AwaitData reports whether getMore waits for new documents.
func (t *TailCursor) AwaitData() bool { return t.await }

// Empty reports that the collection had no documents when the cursor was
// opened: the cursor is not kept after its first batch.
func (t *TailCursor) Empty() bool { return t.empty }

// Next returns the next document in natural order; io.EOF means none for
// now (a later Next may find new ones).
func (t *TailCursor) Next(ctx context.Context) (bson.Raw, error) {
	if t.closed {
		if t.empty {
			return nil, io.EOF
		}
		return nil, ErrCursorClosed
	}
	if t.pass == nil {
		if err := t.openPass(); err != nil {
			return nil, err
		}
	}
	d, err := t.pass.Next(ctx)
	if last := t.pass.sc.LastNatural(); last > t.last {
		t.last = last
	}
	if errors.Is(err, io.EOF) {
		t.pass.Close()
		t.pass = nil
	}
	return d, err
}

// openPass opens a scan of a fresh snapshot past the last entry scanned.
func (t *TailCursor) openPass() error {
	_, version := t.e.tails.changed(t.collID)
	view := t.e.openRead(t.db, t.coll)
	if view.meta == nil || view.meta.ID != t.collID {
		view.close()
		return mongoerr.New(mongoerr.QueryPlanKilled, "collection dropped")
	}
	if t.last > 0 {
		_, err := view.snap.Get(catalog.NaturalKey(t.collID, t.last))
		if errors.Is(err, storage.ErrNotFound) {
			view.close()
			return mongoerr.Newf(mongoerr.CappedPositionLost,
				"CollectionScan died due to position in capped collection being deleted. Last seen record id: RecordId(%d)", t.last)
		}
		if err != nil {
			view.close()
			return err
		}
	}
	p, err := plan.Choose(view.meta, plan.Request{Filter: t.q.filter, Natural: 1})
	if err != nil {
		view.close()
		return err
	}
	p.ResumeAfter(t.last)
	q := *t.q
	if t.passes > 0 {
		// skip applies to the first pass only.
		q.skip = 0
	}
	t.passes++
	t.pass = t.e.newFindCursor(view, p, &q)
	t.version = version
	return nil
}

// StillVisible implements Rechecker.
func (t *TailCursor) StillVisible() bool {
	if t.pass == nil {
		return true
	}
	return t.pass.StillVisible()
}

// Wait blocks until a commit appends to the collection after the last
// pass was opened, d has passed, or ctx is done.
func (t *TailCursor) Wait(ctx context.Context, d time.Duration) {
	if t.closed || d <= 0 {
		return
	}
	ch, v := t.e.tails.changed(t.collID)
	if v != t.version {
		return
	}
	tm := time.NewTimer(d)
	defer tm.Stop()
	select {
	case <-ch:
	case <-tm.C:
	case <-ctx.Done():
	}
}

// Close implements Cursor.
func (t *TailCursor) Close() {
	if t.pass != nil {
		t.pass.Close()
		t.pass = nil
	}
	t.closed = true
}
