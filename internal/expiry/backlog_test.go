package expiry_test

import (
	"context"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mayfly/mayfly/internal/expiry"
)

// countedSource is a countingSource that counts its CountDue calls.
type countedSource struct {
	countingSource
	counts *atomic.Int64
}

func (c countedSource) CountDue(ctx context.Context, now time.Time) (int64, time.Time, time.Time, error) {
	c.counts.Add(1)
	return c.countingSource.CountDue(ctx, now)
}

// Ensure that during a rate-limited storm, which one long sub-pass deletes,
// the backlog gauge follows the items still due (a known figure, exact
// between batches) instead of keeping the 0 counted before they fell due,
// and that it does so with at most one CountDue per BacklogInterval.
func TestBacklogFollowsRateLimitedStorm(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, func(c *expiry.Config) {
			c.Backoff.Disabled = true
			c.Params.MaxDeletesPerSecond = 1000
		})
		t0 := h.clk.Now()
		f := newFake("a", expiry.KindRedisKeys, h.clk)
		f.addN(10000, t0.Add(2*time.Second))
		var counts atomic.Int64
		h.register(countedSource{countingSource{f}, &counts})
		h.start()
		defer h.stop()

		backlog := func() expiry.SourceStats {
			s, ok := h.e.Stats().Source("a")
			if !ok {
				t.Fatal("source a not in Stats")
			}
			return s
		}
		if s := backlog(); !s.BacklogKnown || s.Backlog != 0 {
			t.Fatalf("backlog before the storm %d (known %v), want a known 0", s.Backlog, s.BacklogKnown)
		}
		advance(2 * time.Second)
		countsAtStart := counts.Load()
		for i := range 8 {
			if i == 2 {
				// Items falling due during the pass wait for the next
				// one; the gauge counts them too, once counted again.
				f.addN(500, h.clk.Now())
			}
			advance(time.Second)
			s, left := backlog(), f.len()
			if left == 0 {
				t.Fatalf("storm over after %d s at 1000/s, want about 10 s", i+1)
			}
			if i == 2 {
				if !s.BacklogKnown || s.Backlog < int64(left-500) || s.Backlog > int64(left) {
					t.Errorf("%d s into the storm: backlog %d (known %v), want %d..%d known", i+1, s.Backlog, s.BacklogKnown, left-500, left)
				}
				continue
			}
			if !s.BacklogKnown || s.Backlog != int64(left) {
				t.Errorf("%d s into the storm: backlog %d (known %v), want %d known", i+1, s.Backlog, s.BacklogKnown, left)
			}
		}
		if n := counts.Load() - countsAtStart; n > 9 {
			t.Errorf("%d CountDue calls in 8 s of storm, want at most one per BacklogInterval (1s)", n)
		}
		advance(10 * time.Second)
		if s := backlog(); f.len() != 0 || !s.BacklogKnown || s.Backlog != 0 {
			t.Errorf("after the storm %d left, backlog %d (known %v), want 0 known", f.len(), s.Backlog, s.BacklogKnown)
		}
	})
}
