package expiry_test

import (
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
				if c.Batch.Max > 10 {
					t.Fatalf("%s: batch of %d items, want at most 10 (the bucket's capacity)", src.name, c.Batch.Max)
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

// TestBackoffUnderForegroundLatency follows the controller through a storm:
// it starts at StartLevel after a calm idle spell, speeds up while the
// foreground stays calm, halves its duty for every slow window down to
// 2^-MaxLevel with pauses in proportion, and returns to full speed once the
// latency recovers.
func TestBackoffUnderForegroundLatency(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h, src, t0, _ := newStorm(t, expiry.BackoffConfig{
			Window:     100 * time.Millisecond,
			MinSamples: 10,
			Factor:     1.5,
			Floor:      time.Millisecond,
			MaxLevel:   3,
			StartLevel: 2,
			Recover:    0.5,
			BatchTime:  time.Hour, // batches shrink by level only
			LagBound:   -1,        // the level alone paces
			Burst:      -1,        // from the storm's first batch
		})
		// Before the storm a foreground request of 1ms every half
		// millisecond; during it 20 requests per batch, which take 5ms
		// between 1.5s and 2.5s (what the deletions cause) and 1ms
		// otherwise.
		stormStarted := make(chan struct{})
		go observeEvery10ms(h.e, stormStarted)
		src.onReap = func(n int) {
			if n == 0 {
				close(stormStarted)
			}
			lat := time.Millisecond
			if now := h.clk.Now().Sub(t0); now >= 1500*time.Millisecond && now < 2500*time.Millisecond {
				lat = 5 * time.Millisecond
			}
			for range 20 {
				h.e.ObserveForeground(lat)
			}
		}
		h.register(src)
		h.start()
		defer h.stop()
		advance(20 * time.Second)

		calls := src.reapCalls()
		if src.len() != 0 {
			t.Fatalf("%d items left", src.len())
		}
		if got := calls[0].Batch.Max; got != 250 {
			t.Errorf("first batch of the storm %d, want 250 (1000 at StartLevel 2)", got)
		}
		fullBefore := false
		minBatch, maxGap := 1<<30, time.Duration(0)
		for i, c := range calls {
			at := c.At.Sub(t0)
			if at < 1500*time.Millisecond && c.Batch.Max == 1000 {
				fullBefore = true
			}
			minBatch = min(minBatch, c.Batch.Max)
			if i > 0 {
				maxGap = max(maxGap, c.At.Sub(calls[i-1].At))
			}
		}
		if !fullBefore {
			t.Error("never reached full batches while the foreground was calm")
		}
		if minBatch != 125 {
			t.Errorf("smallest batch %d, want 125 (1000 at MaxLevel 3)", minBatch)
		}
		// At level 3 the sweeper works an eighth of the time: a 10ms batch
		// and a 70ms pause.
		if maxGap != 80*time.Millisecond {
			t.Errorf("largest gap between batches %v, want 80ms", maxGap)
		}
		if last := calls[len(calls)-1]; last.Batch.Max != 1000 {
			t.Errorf("last batch %d, want 1000 after latency recovered", last.Batch.Max)
		}
		st := h.e.Stats().Backoff
		if st.Level != 0 || st.Duty != 1 || st.SlowWindows < 3 || st.Pauses == 0 || st.PauseTime == 0 {
			t.Errorf("backoff stats %+v: want level 0 (duty 1) at the end, >= 3 slow windows, pauses taken", st)
		}
		// The baseline starts at the idle p99 (1ms, in a bucket up to
		// 1.05ms) and each slow window moves it 1% toward 5ms (a bucket up to
		// 5.24ms).
		if hi := 1049*time.Microsecond + time.Duration(st.SlowWindows)*45*time.Microsecond; st.Baseline < time.Millisecond || st.Baseline > hi {
			t.Errorf("baseline %v, want 1ms..%v after %d slow windows", st.Baseline, hi, st.SlowWindows)
		}
	})
}

// newStorm builds an engine with the back-off b and no per-visit budget,
// and a source of 300,000 keys due one second after t0 whose batches take
// 10ms each; the caller registers src and starts h.
func newStorm(t *testing.T, b expiry.BackoffConfig) (h *harness, src *fakeSource, t0, storm time.Time) {
	t.Helper()
	h = newHarness(t, func(c *expiry.Config) {
		c.Params.DeleteTargetDocs = 0
		c.Params.DeleteTargetTimeMS = 0
		c.Backoff = b
	})
	t0 = h.clk.Now()
	storm = t0.Add(time.Second)
	src = newFake("redis_keys:db0", expiry.KindRedisKeys, h.clk)
	src.perBatch = 10 * time.Millisecond
	src.addN(300_000, storm)
	return h, src, t0, storm
}

// observeEvery10ms reports 20 foreground requests of 1ms to e every 10ms
// until stop is closed.
func observeEvery10ms(e *expiry.Engine, stop <-chan struct{}) {
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-stop:
			return
		case <-tick.C:
			for range 20 {
				e.ObserveForeground(time.Millisecond)
			}
		}
	}
}

// TestBackoffLagBound: a foreground that every batch slows keeps the
// controller at MaxLevel, but only while the deletions are less than
// LagBound late: the level's cap falls with the lag, so a storm still
// finishes at full speed soon after LagBound.
func TestBackoffLagBound(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h, src, _, storm := newStorm(t, expiry.BackoffConfig{
			Window:     100 * time.Millisecond,
			MinSamples: 10,
			Factor:     1.5,
			Floor:      time.Millisecond,
			MaxLevel:   6,
			StartLevel: 6,
			Recover:    0.5,
			LagBound:   time.Second,
			Burst:      -1,
		})
		// 1ms requests every 10ms; each batch slows 20 of them to 5ms.
		stop := make(chan struct{})
		go observeEvery10ms(h.e, stop)
		defer close(stop)
		src.onReap = func(int) {
			for range 20 {
				h.e.ObserveForeground(5 * time.Millisecond)
			}
		}
		h.register(src)
		h.start()
		defer h.stop()
		advance(5 * time.Second)

		if src.len() != 0 {
			t.Fatalf("%d items left 4s after the storm, want 0 (full speed, 100,000/s, from 1s late)", src.len())
		}
		calls := src.reapCalls()
		var early, late int
		for _, c := range calls {
			switch at := c.At.Sub(storm); {
			case at < 300*time.Millisecond:
				early = max(early, c.Batch.Max)
			case at > 1100*time.Millisecond:
				late = max(late, c.Batch.Max)
			}
		}
		if early == 0 || early > 1000/8 {
			t.Errorf("largest batch in the storm's first 300ms %d, want 1..125 (the foreground is slowed)", early)
		}
		if late != 1000 {
			t.Errorf("largest batch once 1.1s late %d, want 1000 (the lag bound lifts the level)", late)
		}
	})
}

// TestBackoffBatchTime: with BatchTime set, while foreground requests are
// watched a batch holds about BatchTime's worth of items at the pace of the
// previous one, but no fewer than ttlDeleteBatchSize/8 (a slow batch may
// have waited for a lock); with no foreground, or by default, it holds
// ttlDeleteBatchSize.
func TestBackoffBatchTime(t *testing.T) {
	for _, tc := range []struct {
		name      string
		batchTime time.Duration
		watched   bool
		perItem   time.Duration
		want      int
	}{
		{"default", 0, true, 10 * time.Microsecond, 1000},
		{"no foreground", 2 * time.Millisecond, false, 10 * time.Microsecond, 1000},
		{"watched", 2 * time.Millisecond, true, 10 * time.Microsecond, 200}, // 2ms at 10µs per item
		{"watched slow source", 2 * time.Millisecond, true, time.Millisecond, 125},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				h := newHarness(t, func(c *expiry.Config) {
					c.Params.DeleteTargetDocs = 0
					c.Params.DeleteTargetTimeMS = 0
					c.Backoff.Window = 10 * time.Millisecond
					c.Backoff.BatchTime = tc.batchTime
					c.Backoff.Burst = -1
				})
				t0 := h.clk.Now()
				src := newFake("a", expiry.KindTTLIndex, h.clk)
				src.perItem = tc.perItem
				src.addN(5_000, t0)
				src.onReap = func(int) {
					if tc.watched {
						for range 50 {
							h.e.ObserveForeground(10 * time.Microsecond) // below Floor: never slow
						}
					}
				}
				h.register(src)
				h.start()
				defer h.stop()
				advance(10 * time.Second)
				if src.len() != 0 {
					t.Fatalf("%d items left", src.len())
				}
				calls := src.reapCalls()
				if got := calls[len(calls)-1].Batch.Max; got != tc.want {
					t.Errorf("last batch %d items, want %d", got, tc.want)
				}
			})
		})
	}
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
			if c.Batch.Max != 1000 {
				t.Fatalf("batch of %d with back-off disabled", c.Batch.Max)
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
				if c.Deleted != 1 || !c.First && !c.Deadline.IsZero() && !c.At.Before(c.Deadline) {
					t.Fatalf("%s: call %+v: want one item per call and no batch but a visit's first past its deadline", src.name, c)
				}
			}
		}
		if st := h.e.Stats(); st.Stalls != 0 || st.Errors != 0 {
			t.Errorf("stalls %d errors %d, want none", st.Stalls, st.Errors)
		}
	})
}

// TestBackoffFollowsWorkload: when every foreground request slows down,
// those the sweeper's batches overlapped and the others alike (a heavier
// workload, not the sweeper), the baseline follows the requests no batch
// overlapped and the sweeper keeps its full speed with items falling due
// steadily.
func TestBackoffFollowsWorkload(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, func(c *expiry.Config) {
			c.Backoff.Window = 100 * time.Millisecond
			c.Backoff.MinSamples = 10
			c.Backoff.Floor = time.Millisecond
		})
		t0 := h.clk.Now()
		src := newFake("redis_keys:db0", expiry.KindRedisKeys, h.clk)
		src.perBatch = time.Millisecond
		for i := range 400 { // 100 items every 10ms for 4s from t0+1s
			src.addN(100, t0.Add(time.Second+time.Duration(i)*10*time.Millisecond))
		}
		lat := func() time.Duration {
			if h.clk.Now().Sub(t0) < 2*time.Second {
				return time.Millisecond
			}
			return 5 * time.Millisecond
		}
		stop := make(chan struct{})
		defer close(stop)
		go func() {
			tick := time.NewTicker(5 * time.Millisecond)
			defer tick.Stop()
			for {
				select {
				case <-stop:
					return
				case <-tick.C:
					for range 10 {
						h.e.ObserveForeground(lat())
					}
				}
			}
		}()
		src.onReap = func(int) {
			for range 10 {
				h.e.ObserveForeground(lat())
			}
		}
		h.register(src)
		h.start()
		defer h.stop()
		advance(6 * time.Second)
		if src.len() != 0 {
			t.Fatalf("%d items left", src.len())
		}
		for _, c := range src.reapCalls() {
			if at := c.At.Sub(t0); at > 3*time.Second && c.Batch.Max != 1000 {
				t.Fatalf("batch of %d at %v: the sweeper slowed down for a workload it did not cause", c.Batch.Max, at)
			}
		}
		st := h.e.Stats()
		if b := st.Backoff.Baseline; b < 4*time.Millisecond {
			t.Errorf("baseline %v, want it to follow the foreground to 5ms", b)
		}
		if p99 := st.Lag.P99(); p99 > 50*time.Millisecond {
			t.Errorf("lag p99 %v with items falling due steadily", p99)
		}
	})
}
