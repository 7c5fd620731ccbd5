package expiry_test

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mayfly/mayfly/internal/expiry"
)

// skippingSource is a fakeSource whose first batches only look at index
// entries whose items moved (Reaped.Skipped) before it deletes anything.
type skippingSource struct {
	*fakeSource
	skips int // batches left that only skip
}

func (s *skippingSource) ReapBatch(ctx context.Context, now time.Time, b expiry.Batch) (expiry.Reaped, error) {
	if s.skips > 0 {
		s.skips--
		return expiry.Reaped{Skipped: b.Max, More: true}, nil
	}
	return s.fakeSource.ReapBatch(ctx, now, b)
}

// Ensure that a batch that deleted nothing but skipped entries counts as
// progress: the engine goes on with the next batch in the same visit and
// does not hold the source back as stalled.
func TestSkippedEntriesAreProgress(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, nil)
		t0 := h.clk.Now()
		f := newFake("a", expiry.KindRedisKeys, h.clk)
		f.addN(2500, t0)
		src := &skippingSource{fakeSource: f, skips: 3}
		h.register(src)
		h.start()
		defer h.stop()
		if n := f.len(); n != 0 {
			t.Fatalf("%d items left after the first pass", n)
		}
		st := h.e.Stats()
		if st.Stalls != 0 || st.Passes != 1 || st.DeletedItems != 2500 {
			t.Errorf("stalls %d passes %d deleted %d; want 0, 1, 2500", st.Stalls, st.Passes, st.DeletedItems)
		}
		if ss, _ := st.Source("a"); ss.Reaps != 6 {
			t.Errorf("%d batches, want 6 (3 that skipped, 3 that deleted)", ss.Reaps)
		}
	})
}
