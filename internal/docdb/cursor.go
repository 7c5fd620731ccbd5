package docdb

import (
	"context"
	"errors"
	"fmt"
	"io"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/plan"
	"github.com/mayfly/mayfly/internal/docdb/query"
	"github.com/mayfly/mayfly/internal/docdb/spill"
	"github.com/mayfly/mayfly/internal/docdb/stored"
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
	// sorter holds the matches of a blocking sort, returned in order; nil
	// once exhausted.
	sorter   *spill.Sorter[sortItem]
	sortDone bool
	closed   bool
	// last is the document the last Next returned, for StillVisible.
	last *plan.Matched
}

// Rechecker is implemented by the cursors whose documents can expire after
// Next returned them. A caller that holds a document back (the wire layer
// reads one ahead to know whether a batch is the last) asks StillVisible
// before handing it out: it reports whether the document the last Next
// returned is still visible now, under strict visibility. A document found
// expired no longer counts against the cursor's limit.
type Rechecker interface {
	StillVisible() bool
}

// Finisher is implemented by the cursors that know, without reading,
// that Next has nothing more: a find whose limit is reached, a point read
// that returned its document, a query on a missing collection. MongoDB's
// plans know the same and close the cursor with the batch that reached
// the end; any other cursor whose batch is full stays open, and the
// getMore that finds the end answers an empty batch and closes it.
type Finisher interface {
	Finished() bool
}

// newFindCursor returns the cursor of plan p over view; it owns view.
func (e *Engine) newFindCursor(view readView, p *plan.Plan, q *findQuery) *findCursor {
	c := &findCursor{e: e, view: view, p: p, q: q, vis: e.newVisibility(view.meta), stats: &plan.Stats{}}
	c.sc = plan.NewScanner(view.reader(), p, c.stats)
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
		c.last = d
		return d, nil
	}
}

// Finished implements Finisher: the limit is reached.
func (c *findCursor) Finished() bool {
	return c.closed || c.q.limit > 0 && c.stats.Returned >= c.q.limit
}

// StillVisible implements Rechecker.
func (c *findCursor) StillVisible() bool {
	if c.last == nil || !c.expired(c.last.Stored.Doc) {
		return true
	}
	c.last = nil
	c.stats.Returned--
	return false
}

// expired reports whether doc, read earlier, is hidden at the current time.
func (c *findCursor) expired(doc bson.D) bool {
	v := c.vis
	v.refresh(c.e.opts.Now())
	return v.Hides(doc)
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
	for c.sorter != nil {
		it, ok, err := c.sorter.Next()
		if err != nil {
			return nil, err
		}
		if !ok {
			// Exhausted: the sort's files go at once.
			c.sorter.Close()
			c.sorter = nil
			break
		}
		sd, err := stored.New(it.raw)
		if err != nil {
			return nil, err
		}
		// Re-check: the document may have expired since the sort.
		if c.vis.Hides(sd.Doc) {
			continue
		}
		return &plan.Matched{Stored: sd, Result: query.MatchResult{Matched: true, ArrayIndex: it.arrayIndex}}, nil
	}
	return nil, nil
}

// blockingSort reads every match into the sorter (querymem.go), keeping
// only the first skip+limit when there is a limit.
func (c *findCursor) blockingSort(ctx context.Context) error {
	c.sortDone = true
	var keep int64
	if c.q.limit > 0 {
		keep = c.q.skip + c.q.limit
	}
	c.sorter = c.e.newDocSorter(c.q, c.p.Sort, keep)
	for {
		d, err := c.m.Next(ctx)
		if err != nil {
			return err
		}
		if d == nil {
			break
		}
		err = c.sorter.Add(sortItem{raw: d.Stored.Raw, key: c.p.Sort.KeyOf(d.Stored.Doc), arrayIndex: d.Result.ArrayIndex})
		if errors.Is(err, spill.ErrMemoryLimit) {
			return sortMemoryError(c.e.SortMemoryLimit())
		}
		if err != nil {
			return fmt.Errorf("docdb: sort: %w", err)
		}
		c.stats.Sorted++
		c.stats.SortedBytes += int64(len(d.Stored.Raw))
	}
	c.stats.Spills = int64(c.sorter.Runs())
	c.sc.Close()
	return c.sorter.Sort()
}

// output projects a document and encodes it; an unprojected document is
// returned byte for byte as stored.
func (c *findCursor) output(d *plan.Matched) (bson.Raw, error) {
	if c.q.returnKey || c.q.showRecordID {
		doc := d.Stored.Doc
		if c.q.proj != nil && !c.q.returnKey {
			var err error
			if doc, err = c.q.proj.Apply(doc, d.Result); err != nil {
				return nil, err
			}
		}
		return marshalDoc(keyOutput(c.q, d.Stored, doc, c.p.Index))
	}
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
	if c.sorter != nil {
		c.sorter.Close()
		c.sorter = nil
	}
	c.last = nil
}
