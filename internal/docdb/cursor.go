package docdb

import (
	"context"
	"io"
	"sort"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/plan"
)

// findCursor streams the results of a find from a storage snapshot. It
// filters lazily: each Next moves the scan until the next matching
// document, so getMore batches cost only what they return. A blocking sort
// (no index provides the order) reads every match at the first Next.
//
// Strict visibility is re-evaluated at every Next with the current time,
// so a document that expires while the cursor is open is not returned by a
// later getMore, even though the snapshot still holds it.
type findCursor struct {
	e     *Engine
	view  readView
	p     *plan.Plan
	q     *findQuery
	vis   visibility
	sc    *plan.Scanner
	m     *plan.Matcher
	stats *plan.Stats
	// sorted holds the matches of a blocking sort, in order; pos is the
	// next one to return.
	sorted   []*plan.Matched
	sortDone bool
	pos      int
	closed   bool
}

// newFindCursor returns the cursor of plan p over view; it owns view.
func (e *Engine) newFindCursor(view readView, p *plan.Plan, q *findQuery) *findCursor {
	c := &findCursor{e: e, view: view, p: p, q: q, vis: e.newVisibility(view.meta), stats: &plan.Stats{}}
	c.sc = plan.NewScanner(view.snap, p, c.stats)
	c.m = &plan.Matcher{Scanner: c.sc, Vis: &c.vis, Stats: c.stats}
	return c
}

// Next implements Cursor.
func (c *findCursor) Next(ctx context.Context) (bson.Raw, error) {
	if c.closed {
		return nil, ErrCursorClosed
	}
	d, err := c.nextMatch(ctx)
	if err != nil || d == nil {
		if err == nil {
			err = io.EOF
		}
		return nil, err
	}
	return c.output(d)
}

// nextMatch returns the next document after skip and within limit, or nil.
func (c *findCursor) nextMatch(ctx context.Context) (*plan.Matched, error) {
	if c.q.limit > 0 && c.stats.Returned >= c.q.limit {
		return nil, nil
	}
	c.vis.refresh(c.e.opts.Now())
	for {
		d, err := c.nextOrdered(ctx)
		if err != nil || d == nil {
			return nil, err
		}
		if c.stats.Skipped < c.q.skip {
			c.stats.Skipped++
			continue
		}
		c.stats.Returned++
		return d, nil
	}
}

// nextOrdered returns the next match in the requested order.
func (c *findCursor) nextOrdered(ctx context.Context) (*plan.Matched, error) {
	if c.p.Sort == nil || c.p.Sort.Empty() || c.p.SortProvided {
		return c.m.Next(ctx)
	}
	if !c.sortDone {
		if err := c.blockingSort(ctx); err != nil {
			return nil, err
		}
	}
	for c.pos < len(c.sorted) {
		d := c.sorted[c.pos]
		c.sorted[c.pos] = nil
		c.pos++
		// Re-check: the document may have expired since the sort.
		if c.vis.Hides(d.Stored.Doc) {
			continue
		}
		return d, nil
	}
	return nil, nil
}

// blockingSort reads every match and sorts them, keeping only the first
// skip+limit when there is a limit.
func (c *findCursor) blockingSort(ctx context.Context) error {
	c.sortDone = true
	type keyed struct {
		d   *plan.Matched
		key []any
	}
	var all []keyed
	for {
		d, err := c.m.Next(ctx)
		if err != nil {
			return err
		}
		if d == nil {
			break
		}
		all = append(all, keyed{d: d, key: c.p.Sort.KeyOf(d.Stored.Doc)})
	}
	sort.SliceStable(all, func(i, j int) bool { return c.p.Sort.CompareKeys(all[i].key, all[j].key) < 0 })
	n := len(all)
	if c.q.limit > 0 && c.q.skip+c.q.limit < int64(n) {
		n = int(c.q.skip + c.q.limit)
	}
	c.sorted = make([]*plan.Matched, n)
	for i := 0; i < n; i++ {
		c.sorted[i] = all[i].d
	}
	c.stats.Sorted = int64(len(all))
	c.sc.Close()
	return nil
}

// output projects a document and encodes it; an unprojected document is
// returned byte for byte as stored.
func (c *findCursor) output(d *plan.Matched) (bson.Raw, error) {
	if c.q.proj == nil {
		return d.Stored.Raw, nil
	}
	out, err := c.q.proj.Apply(d.Stored.Doc, d.Result)
	if err != nil {
		return nil, err
	}
	return marshalDoc(out)
}

// Close implements Cursor.
func (c *findCursor) Close() {
	if c.closed {
		return
	}
	c.closed = true
	c.sc.Close()
	c.view.close()
	c.sorted = nil
}
