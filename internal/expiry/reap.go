package expiry

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// reapBatch runs one ReapBatch call of src and deletes the spans it
// reports, adding their items to the result. A span whose deletion fails
// is not counted; the error is returned with what was deleted.
func reapBatch(ctx context.Context, src Source, now time.Time, b Batch) (Reaped, error) {
	r, err := src.ReapBatch(ctx, now, b)
	if err != nil {
		return r, err
	}
	for i := range r.Spans {
		sp := &r.Spans[i]
		if err := deleteSpan(sp); err != nil {
			return r, fmt.Errorf("expiry: %s: %w", src.Name(), err)
		}
		r.Items += len(sp.Due)
		r.Keys += sp.Keys
		r.Due = append(r.Due, sp.Due...)
	}
	return r, nil
}

// deleteSpan deletes sp with one range deletion in one storage batch, under
// sp.Lock when set.
func deleteSpan(sp *Span) error {
	if sp.Store == nil {
		return errors.New("span without a store")
	}
	if sp.Lock != nil {
		sp.Lock.Lock()
		defer sp.Lock.Unlock()
	}
	b := sp.Store.NewBatch()
	defer b.Close()
	apply := func() {}
	if sp.Stage != nil {
		var err error
		if apply, err = sp.Stage(b, sp); err != nil {
			return fmt.Errorf("stage span: %w", err)
		}
		if apply == nil {
			apply = func() {}
		}
		if len(sp.Due) == 0 {
			return nil
		}
	}
	if err := b.DeleteRange(sp.Start, sp.End); err != nil {
		return err
	}
	if err := b.Commit(); err != nil {
		return fmt.Errorf("delete span: %w", err)
	}
	apply()
	return nil
}

// Drain reaps src's items due at or before now outside the engine, batch
// by batch with batches of at most batch items (0: ttlDeleteBatchSize's
// default), until none is left or maxItems are deleted (0: no limit), with
// no pacing. Tests and tools use it; the engine's sweeper paces its own
// loop. The result sums the batches; More says due items remain.
func Drain(ctx context.Context, src Source, now time.Time, maxItems, batch int) (Reaped, error) {
	if batch <= 0 {
		batch = int(DefaultParams().BatchSize)
	}
	var sum Reaped
	for {
		if err := ctx.Err(); err != nil {
			return sum, err
		}
		want := batch
		if maxItems > 0 {
			want = min(want, maxItems-sum.Items)
		}
		r, err := reapBatch(ctx, src, now, Batch{Max: want})
		sum.Items += r.Items
		sum.Keys += r.Keys
		sum.Skipped += r.Skipped
		sum.Due = append(sum.Due, r.Due...)
		sum.Spans = append(sum.Spans, r.Spans...)
		sum.More = r.More
		if err != nil || !r.More {
			return sum, err
		}
		if r.Items == 0 && r.Skipped == 0 && len(r.Spans) == 0 {
			return sum, fmt.Errorf("expiry: %s reports due items but reaped none", src.Name())
		}
		if maxItems > 0 && sum.Items >= maxItems {
			return sum, nil
		}
	}
}
