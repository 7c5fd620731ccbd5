package expiry

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"
)

// Timeline is an optional interface of a Source that counts its items by
// due time from its time-ordered index alone, without reading the items,
// for the console's expiry timeline.
type Timeline interface {
	// CountDueBefore returns, for each of the ascending edges, how many
	// items are due at or before it: out[i] counts the items with
	// due <= edges[i]. One walk of the index up to the last edge answers
	// every edge.
	CountDueBefore(ctx context.Context, edges []time.Time) ([]int64, error)
}

// ItemCounter is an optional interface of a Source that knows, without a
// walk, how many items it holds that expire, due or not.
type ItemCounter interface {
	CountItems(ctx context.Context) (int64, error)
}

// Forever is an edge past every due time: the count at it is the number of
// items that expire at all, which an ItemCounter gives without a walk.
var Forever = time.UnixMilli(math.MaxInt64 - 1)

// SourceTimeline is one source's cumulative due counts at the edges of a
// Engine.Timeline call.
type SourceTimeline struct {
	Source string
	Kind   Kind
	// DueBefore[i] is the number of items due at or before edges[i].
	DueBefore []int64
}

// Timeline counts, for every registered source that implements Timeline
// or Counter, its items due at or before each of the ascending edges. A
// Counter that is not a Timeline is asked once per edge. Sources that fail
// are left out and their errors joined into the returned error; the
// result is sorted by source name.
func (e *Engine) Timeline(ctx context.Context, edges []time.Time) ([]SourceTimeline, error) {
	if !slices.IsSortedFunc(edges, func(a, b time.Time) int { return a.Compare(b) }) {
		return nil, errors.New("expiry: timeline edges are not ascending")
	}
	e.mu.Lock()
	type entry struct {
		name string
		kind Kind
		src  Source
	}
	var list []entry
	for _, st := range e.order {
		list = append(list, entry{st.name, st.kind, st.src})
	}
	e.mu.Unlock()
	var out []SourceTimeline
	var errs []error
	for _, x := range list {
		counts, err := countDueBefore(ctx, x.src, edges)
		if err != nil {
			errs = append(errs, fmt.Errorf("timeline %s: %w", x.name, err))
			continue
		}
		if counts == nil {
			continue // neither a Timeline nor a Counter
		}
		out = append(out, SourceTimeline{Source: x.name, Kind: x.kind, DueBefore: counts})
	}
	sortBy(out, func(t SourceTimeline) string { return t.Source })
	return out, errors.Join(errs...)
}

// countDueBefore asks src for its cumulative counts at edges; nil when it
// can count nothing.
func countDueBefore(ctx context.Context, src Source, edges []time.Time) ([]int64, error) {
	if ic, ok := src.(ItemCounter); ok && len(edges) > 0 && edges[len(edges)-1].Equal(Forever) {
		counts, err := countDueBefore(ctx, src, edges[:len(edges)-1])
		if err != nil || (counts == nil && len(edges) > 1) {
			return counts, err
		}
		n, err := ic.CountItems(ctx)
		if err != nil {
			return nil, err
		}
		return append(counts, n), nil
	}
	if t, ok := src.(Timeline); ok {
		counts, err := t.CountDueBefore(ctx, edges)
		if err == nil && len(counts) != len(edges) {
			err = fmt.Errorf("expiry: %d counts for %d edges", len(counts), len(edges))
		}
		return counts, err
	}
	c, ok := src.(Counter)
	if !ok {
		return nil, nil
	}
	counts := make([]int64, len(edges))
	for i, at := range edges {
		n, _, _, err := c.CountDue(ctx, at)
		if err != nil {
			return nil, err
		}
		counts[i] = n
	}
	return counts, nil
}

// AddDue adds one item due at d (Unix ms) to the counts of the edges at or
// after it; counts holds per-edge increments until Cumulate runs.
func AddDue(counts []int64, edges []int64, d int64) {
	i, _ := slices.BinarySearch(edges, d) // the first edge >= d
	if i < len(counts) {
		counts[i]++
	}
}

// Cumulate turns per-edge increments (AddDue) into cumulative counts.
func Cumulate(counts []int64) {
	for i := 1; i < len(counts); i++ {
		counts[i] += counts[i-1]
	}
}

// EdgesMillis converts edges to Unix milliseconds.
func EdgesMillis(edges []time.Time) []int64 {
	out := make([]int64, len(edges))
	for i, t := range edges {
		out[i] = t.UnixMilli()
	}
	return out
}
