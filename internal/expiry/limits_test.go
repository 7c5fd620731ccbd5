package expiry_test

import (
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mayfly/mayfly/internal/expiry"
)

func TestRateLimit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, func(c *expiry.Config) { c.Params.MaxDeletesPerSecond = 100 })
		t0 := h.clk.Now()
		a := newFake("a", expiry.KindRedisKeys, h.clk)
		b := newFake("b", expiry.KindTTLIndex, h.clk)
		a.addN(600, t0)
		b.addN(400, t0)
		h.register(a, b)
		if got := h.e.EstimateDuration(1000); got != 10*time.Second {
			t.Errorf("EstimateDuration before any reaping = %v, want 10s from the limit", got)
		}
		h.start()
		defer h.stop()

		advance(5 * time.Second)
		deleted := 1000 - a.len() - b.len()
		// 10 tokens at once (a tenth of a second's worth), then 10 per 100ms.
		if deleted < 500 || deleted > 510 {
			t.Errorf("deleted %d in 5s at 100/s, want 500..510", deleted)
		}
		for _, src := range []*fakeSource{a, b} {
			for _, c := range src.reapCalls() {
				if c.Budget.MaxItems > 10 {
					t.Fatalf("%s: batch of %d items, want at most 10 (the bucket's capacity)", src.name, c.Budget.MaxItems)
				}
			}
		}
		advance(5 * time.Second)
		if n := a.len() + b.len(); n != 0 {
			t.Fatalf("%d items left after 10s", n)
		}
		st := h.e.Stats()
		if st.RateLimitWait < 9*time.Second {
			t.Errorf("RateLimitWait = %v, want about 9.9s", st.RateLimitWait)
		}
		if st.Rate < 90 || st.Rate > 110 {
			t.Errorf("measured rate %.1f/s, want about 100", st.Rate)
		}
		if got := h.e.EstimateDuration(500); got < 4500*time.Millisecond || got > 5500*time.Millisecond {
			t.Errorf("EstimateDuration(500) = %v, want about 5s", got)
		}
	})
}

func TestRateLimitChangeAtRuntime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, func(c *expiry.Config) { c.Params.MaxDeletesPerSecond = 10 })
		t0 := h.clk.Now()
		a := newFake("a", expiry.KindRedisKeys, h.clk)
		a.addN(100_000, t0)
		h.register(a)
		h.start()
		defer h.stop()
		advance(time.Second)
		if got := 100_000 - a.len(); got > 11 {
			t.Fatalf("deleted %d in 1s at 10/s", got)
		}
		if _, err := h.e.SetParameter(expiry.ParamMaxDeletesPerSecond, int64(0)); err != nil {
			t.Fatal(err)
		}
		advance(time.Second)
		if a.len() != 0 {
			t.Fatalf("%d left 1s after lifting the limit", a.len())
		}
	})
}

func TestBackoffUnderForegroundLatency(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, func(c *expiry.Config) {
			c.Params.DeleteTargetDocs = 0
			c.Params.DeleteTargetTimeMS = 0
			c.Backoff = expiry.BackoffConfig{
				Window:     100 * time.Millisecond,
				MinSamples: 10,
				Factor:     1.5,
				Floor:      time.Millisecond,
				Pause:      10 * time.Millisecond,
				MaxLevel:   3,
			}
		})
		t0 := h.clk.Now()
		src := newFake("redis_keys:db0", expiry.KindRedisKeys, h.clk)
		src.perBatch = 10 * time.Millisecond
		src.addN(300_000, t0)
		// Foreground requests take 1ms, except between 300ms and 900ms,
		// when they take 5ms (the storm the deletes cause).
		var slowCalls atomic.Int64
		src.onReap = func(int) {
			lat := time.Millisecond
			if now := h.clk.Now().Sub(t0); now >= 300*time.Millisecond && now < 900*time.Millisecond {
				lat = 5 * time.Millisecond
				slowCalls.Add(1)
			}
			for range 20 {
				h.e.ObserveForeground(lat)
			}
		}
		h.register(src)
		h.start()
		defer h.stop()
		advance(10 * time.Second)

		calls := src.reapCalls()
		if src.len() != 0 {
			t.Fatalf("%d items left", src.len())
		}
		minBatch, maxGap := 1<<30, time.Duration(0)
		for i, c := range calls {
			at := c.At.Sub(t0)
			if at < 400*time.Millisecond && c.Budget.MaxItems != 1000 {
				t.Errorf("batch of %d at %v, before any slow window was judged", c.Budget.MaxItems, at)
			}
			minBatch = min(minBatch, c.Budget.MaxItems)
			if i > 0 {
				maxGap = max(maxGap, c.At.Sub(calls[i-1].At))
			}
		}
		if minBatch != 125 {
			t.Errorf("smallest batch %d, want 125 (1000>>3 at MaxLevel 3)", minBatch)
		}
		// At level 3 a batch (10ms) follows a 40ms pause.
		if maxGap != 50*time.Millisecond {
			t.Errorf("largest gap between batches %v, want 50ms", maxGap)
		}
		if last := calls[len(calls)-1]; last.Budget.MaxItems != 1000 {
			t.Errorf("last batch %d, want 1000 after latency recovered", last.Budget.MaxItems)
		}
		st := h.e.Stats().Backoff
		if st.Level != 0 || st.SlowWindows < 5 || st.Pauses == 0 || st.PauseTime == 0 {
			t.Errorf("backoff stats %+v: want level 0 at the end, >= 5 slow windows, pauses taken", st)
		}
		if st.Baseline < time.Millisecond || st.Baseline > 1200*time.Microsecond {
			t.Errorf("baseline %v, want about 1ms", st.Baseline)
		}
	})
}

func TestBackoffDisabled(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, func(c *expiry.Config) {
			c.Params.DeleteTargetDocs = 0
			c.Backoff.Disabled = true
			c.Backoff.Window = 10 * time.Millisecond
		})
		t0 := h.clk.Now()
		src := newFake("a", expiry.KindRedisKeys, h.clk)
		src.perBatch = 10 * time.Millisecond
		src.addN(50_000, t0)
		src.onReap = func(n int) {
			lat := time.Millisecond
			if n > 10 {
				lat = time.Second
			}
			for range 50 {
				h.e.ObserveForeground(lat)
			}
		}
		h.register(src)
		h.start()
		defer h.stop()
		advance(time.Second)
		for _, c := range src.reapCalls() {
			if c.Budget.MaxItems != 1000 {
				t.Fatalf("batch of %d with back-off disabled", c.Budget.MaxItems)
			}
		}
		if st := h.e.Stats().Backoff; st.Windows != 0 || st.Pauses != 0 {
			t.Errorf("backoff stats %+v with back-off disabled", st)
		}
	})
}

// TestRateLimitSlowerThanTimeTarget: waiting for a token outlasts the
// per-visit time budget; visits still make progress and nothing is taken
// for a stalled source.
func TestRateLimitSlowerThanTimeTarget(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, func(c *expiry.Config) {
			c.Params.MaxDeletesPerSecond = 1
			c.Params.DeleteTargetTimeMS = 500
		})
		t0 := h.clk.Now()
		a := newFake("a", expiry.KindPolicy, h.clk)
		b := newFake("b", expiry.KindPolicy, h.clk)
		a.addN(5, t0)
		b.addN(5, t0)
		h.register(a, b)
		h.start()
		defer h.stop()
		advance(9500 * time.Millisecond)
		if n := a.len() + b.len(); n != 0 {
			t.Fatalf("%d items left after 9.5s at 1/s", n)
		}
		for _, src := range []*fakeSource{a, b} {
			for _, c := range src.reapCalls() {
				if c.Deleted != 1 || !c.Budget.Deadline.IsZero() && !c.At.Before(c.Budget.Deadline) {
					t.Fatalf("%s: call %+v: want one item per call and never a past deadline", src.name, c)
				}
			}
		}
		if st := h.e.Stats(); st.Stalls != 0 || st.Errors != 0 {
			t.Errorf("stalls %d errors %d, want none", st.Stalls, st.Errors)
		}
	})
}
