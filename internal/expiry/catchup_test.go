package expiry_test

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/mayfly/mayfly/internal/expiry"
)

// catchUpSource is a fakeSource that implements expiry.CatchUp.
type catchUpSource struct {
	*fakeSource
	factor int
}

func (c catchUpSource) CatchUpFactor() int { return c.factor }

// Ensure that a CatchUp source's batches double while full and late by more
// than a quarter of a second, up to its factor, and halve back once its
// items are on time; and that a source without CatchUp keeps
// ttlDeleteBatchSize whatever its lag.
func TestCatchUpBatches(t *testing.T) {
	cases := []struct {
		name   string
		factor int // 0: the source does not implement CatchUp
		late   time.Duration
		want   []int // MaxItems of the first batches
	}{
		{"behind", 8, time.Minute, []int{1000, 2000, 4000, 8000, 8000, 8000}},
		{"on time", 8, 0, []int{1000, 1000, 1000, 1000}},
		{"not a CatchUp source", 0, time.Minute, []int{1000, 1000, 1000, 1000}},
		{"factor above the bound", 1000, time.Minute, []int{1000, 2000, 4000, 8000, 16000, 32000, 64000, 64000}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				h := newHarness(t, func(c *expiry.Config) {
					c.Params.DeleteTargetDocs = 0
					c.Backoff.Disabled = true
				})
				t0 := h.clk.Now()
				f := newFake("a", expiry.KindTTLIndex, h.clk)
				f.perBatch = time.Millisecond
				// Items due late enough, then 2,000 due at t0 - 1ms: the
				// batches that reach them are on time.
				f.addN(500_000, t0.Add(-tc.late))
				var src expiry.Source = f
				if tc.factor > 0 {
					src = catchUpSource{f, tc.factor}
				}
				h.register(src)
				h.start()
				defer h.stop()
				advance(time.Second)
				calls := f.reapCalls()
				if len(calls) < len(tc.want) {
					t.Fatalf("%d batches", len(calls))
				}
				for i, w := range tc.want {
					if got := calls[i].Batch.Max; got != w {
						t.Fatalf("batch %d of %d items, want %d (batches %v)", i, got, w, sizes(calls))
					}
				}
			})
		})
	}
}

// Ensure that once a CatchUp source has caught up its batches shrink back:
// the batches that take the last 15,000 late items are full and late, the
// ones after them on time.
func TestCatchUpShrinksWhenOnTime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, func(c *expiry.Config) {
			c.Params.DeleteTargetDocs = 0
			c.Backoff.Disabled = true
		})
		t0 := h.clk.Now()
		f := newFake("a", expiry.KindTTLIndex, h.clk)
		f.perBatch = time.Millisecond
		f.addN(15_000, t0.Add(-time.Minute))
		f.addN(100_000, t0)
		h.register(catchUpSource{f, 8})
		h.start()
		defer h.stop()
		advance(time.Second)
		got := sizes(f.reapCalls())
		want := []int{1000, 2000, 4000, 8000, 8000, 4000, 2000, 1000, 1000}
		if len(got) < len(want) {
			t.Fatalf("batches %v, want %v first", got, want)
		}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("batches %v, want %v first", got, want)
			}
		}
	})
}

func sizes(calls []call) []int {
	out := make([]int, len(calls))
	for i, c := range calls {
		out[i] = c.Batch.Max
	}
	return out
}

// Ensure that the backlog gauge counts the items that fell due while a pass
// ran (they wait for the next pass) instead of reading 0 once the pass has
// taken everything due at its start.
func TestBacklogCountsItemsDueDuringThePass(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, func(c *expiry.Config) { c.Backoff.Disabled = true })
		t0 := h.clk.Now()
		f := newFake("a", expiry.KindTTLIndex, h.clk)
		f.perBatch = 100 * time.Millisecond
		f.addN(1000, t0)
		f.addN(300, t0.Add(50*time.Millisecond))
		var seen *expiry.SourceStats
		f.onReap = func(n int) {
			if n != 1 {
				return
			}
			for _, s := range h.e.Stats().Sources {
				if s.Name == "a" {
					seen = &s
				}
			}
		}
		h.register(countingSource{f})
		h.start()
		defer h.stop()
		advance(time.Second)
		if calls := f.reapCalls(); len(calls) < 2 || calls[0].Deleted != 1000 || calls[1].Deleted != 300 {
			t.Fatalf("reap calls %+v, want 1000 then 300", calls)
		}
		if seen == nil || !seen.BacklogKnown || seen.Backlog != 300 {
			t.Fatalf("backlog between the passes %+v, want 300 known", seen)
		}
	})
}
