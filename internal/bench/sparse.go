package bench

import (
	"context"
	"time"
)

// sparseTTL is the expiry of sparse's hidden items: far beyond any run.
const sparseTTL = 24 * time.Hour

// runSparse hides opts.SparseDue items due at one instant among
// opts.SparseHidden items with long TTLs, spread evenly through the load,
// and measures how long after the instant the server's counters say the
// due ones are physically gone (bounded by opts.Timeout). A server that
// finds expired keys by random sampling (Redis) reclaims them slowly when
// they are this rare.
func runSparse(ctx context.Context, e *env, c *conn) Result {
	r := Result{Target: c.Label, Protocol: c.Protocol, Workload: "sparse"}
	o := e.opts
	total := o.SparseHidden + o.SparseDue
	stride := max(total/o.SparseDue, 1)
	isDue := func(i int) bool { return i%stride == 0 && i/stride < o.SparseDue }
	val := value(o.ValueSize, 'h')
	if err := e.prepareExpiring(ctx, c, &r); err != nil {
		r.Error = err.Error()
		return r
	}
	far := time.Now().Add(sparseTTL)
	dueOf := func(i int, due time.Time) time.Time {
		if isDue(i) {
			return due
		}
		return far
	}
	due, loaded, err := e.loadBeforeDue(ctx, c, &r, "sparse", total, dueOf, val, func() error { return e.loadLive(ctx, c) })
	if err != nil {
		r.Error = err.Error()
		return r
	}
	e.measureDeletion(ctx, c, &r, o.SparseDue, due, loaded, "sparse")
	r.add("hidden", float64(o.SparseHidden), "items", Neither)
	if err := e.reset(ctx, c); err != nil {
		r.notef("cleanup: %v", err)
	}
	return r
}
