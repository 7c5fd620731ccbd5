package expiry_test

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/mayfly/mayfly/internal/expiry"
)

// burstBackoff is a controller that, without Burst, would pace every batch
// that slows the foreground down to 1/64 of full speed at once: StartLevel
// at MaxLevel, no lag bound.
func burstBackoff(burst time.Duration) expiry.BackoffConfig {
	return expiry.BackoffConfig{
		Window:     100 * time.Millisecond,
		MinSamples: 10,
		Factor:     1.5,
		Floor:      time.Millisecond,
		MaxLevel:   6,
		StartLevel: 6,
		Recover:    0.5,
		LagBound:   -1,
		Burst:      burst,
	}
}

// runSlowed registers src, starts h's sweeper with 1ms foreground
// requests every 10ms and every batch of src slowing 20 more to 5ms; the
// function it returns stops both.
func runSlowed(h *harness, src *fakeSource) (stop func()) {
	done := make(chan struct{})
	go observeEvery10ms(h.e, done)
	slowEveryBatch(h, src)
	h.register(src)
	h.start()
	return func() {
		h.stop()
		close(done)
	}
}

// slowEveryBatch has every batch of src slow 20 foreground requests to
// 5ms, against 1ms requests every 10ms from observeEvery10ms.
func slowEveryBatch(h *harness, src *fakeSource) {
	src.onReap = func(int) {
		for range 20 {
			h.e.ObserveForeground(5 * time.Millisecond)
		}
	}
}

// runStream runs h's sweeper over a stream of 500 items falling due every
// 10ms from a second after the start, n times, in batches taking perBatch
// plus perItem per item, each slowing the foreground (slowEveryBatch), and
// checks that all are deleted a second after the last is due; it returns
// the source and the start.
func runStream(h *harness, perBatch, perItem time.Duration, n int) (*fakeSource, time.Time) {
	h.t.Helper()
	t0 := h.clk.Now()
	src := newFake("redis_keys:db0", expiry.KindRedisKeys, h.clk)
	src.perBatch, src.perItem = perBatch, perItem
	for k := range n {
		src.addN(500, t0.Add(time.Second+time.Duration(k)*10*time.Millisecond))
	}
	defer runSlowed(h, src)()
	advance(2*time.Second + time.Duration(n)*10*time.Millisecond)
	if left := src.len(); left != 0 {
		h.t.Fatalf("%d items left", left)
	}
	return src, t0
}

// TestBurstKeepsUpUnpaced: a steady stream that the sweeper keeps up with,
// 500 items falling due every 10ms, each pass ending within Burst, is
// never paced although every batch slows the foreground: full batches, no
// pause, no slow window, and every item deleted within one pass of its
// due time.
func TestBurstKeepsUpUnpaced(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, func(c *expiry.Config) { c.Backoff = burstBackoff(100 * time.Millisecond) })
		src, t0 := runStream(h, 2*time.Millisecond, 2*time.Microsecond, 300)
		for i, c := range src.reapCalls() {
			if c.Batch.Max != 1000 {
				t.Fatalf("batch %d at %v allowed %d items, want 1000 (unpaced)", i, c.At.Sub(t0), c.Batch.Max)
			}
		}
		st := h.e.Stats()
		if st.Backoff.Pauses != 0 || st.Backoff.SlowWindows != 0 || st.Backoff.Windows == 0 {
			t.Errorf("backoff %+v: want windows judged, none slow, no pause", st.Backoff)
		}
		// A pass wakes at the due instant or MinPeriod (10ms) after the
		// previous one, and takes 3ms.
		if max := st.Lag.Max; max > 20*time.Millisecond {
			t.Errorf("largest lag %v, want at most 20ms", max)
		}
	})
}

// TestBurstThenPaced: a storm runs unpaced for its pass's first Burst and
// is paced from then on, starting at StartLevel.
func TestBurstThenPaced(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h, src, _, storm := newStorm(t, burstBackoff(100*time.Millisecond))
		defer runSlowed(h, src)()
		advance(3 * time.Second)

		var inBurst, after int
		for i, c := range src.reapCalls() {
			at := c.At.Sub(storm)
			switch {
			case at < 100*time.Millisecond:
				inBurst++
				// Batches take 10ms and follow each other at once.
				if c.Batch.Max != 1000 || at != time.Duration(i)*10*time.Millisecond {
					t.Errorf("batch %d at %v of the storm allowed %d items, want 1000 at %v", i, at, c.Batch.Max, time.Duration(i)*10*time.Millisecond)
				}
			default:
				after++
				if c.Batch.Max > 1000/64+1 {
					t.Errorf("batch %d at %v of the storm allowed %d items, want at most 16 (paced at 1/64)", i, at, c.Batch.Max)
				}
			}
		}
		if inBurst != 10 || after == 0 {
			t.Errorf("%d batches within the burst and %d after it, want 10 and some", inBurst, after)
		}
		if st := h.e.Stats().Backoff; st.Pauses == 0 {
			t.Errorf("backoff %+v: want pauses after the burst", st)
		}
	})
}

// TestBurstPreparesAtNormalPriority: a batch within its pass's Burst
// prepares on the sweeper's thread; past it, on Config.Idle.
func TestBurstPreparesAtNormalPriority(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		idle := &fakeIdle{}
		h := newHarness(t, func(c *expiry.Config) {
			c.Idle = idle
			c.Params.BatchSize = 10
			c.Backoff.Burst = 100 * time.Millisecond
		})
		t0 := h.clk.Now()
		src := &preparingSource{fakeSource: newFake("ttl:db.c.expireAt_1", expiry.KindTTLIndex, h.clk)}
		src.perBatch = 20 * time.Millisecond
		src.addN(30, t0.Add(time.Second))    // three batches: 60ms
		src.addN(100, t0.Add(2*time.Second)) // ten batches: 200ms
		h.register(src)
		h.start()
		defer h.stop()

		advance(1500 * time.Millisecond)
		if got := idle.doCalls(); got != 0 || src.prepared.Load() != 3 {
			t.Fatalf("a pass within its burst: %d preparations, %d on the idle thread; want 3 and 0", src.prepared.Load(), got)
		}
		advance(time.Second)
		// Batches start at 0, 20, ... 180ms of the pass: those from 100ms
		// on go to the idle thread.
		if got := idle.doCalls(); got != 5 || src.prepared.Load() != 13 {
			t.Fatalf("a pass past its burst: %d preparations, %d on the idle thread; want 13 and 5", src.prepared.Load(), got)
		}
	})
}

// TestSteadyStreamWithDefaults: with the default controller, a stream of
// 50,000 items a second whose every batch slows the foreground (as each
// kv batch holds the store's lock) is deleted well within 100ms of its due
// times, unpaced. Without Burst the controller paces it to the lag at
// which LagBound's cap lets it keep up, hundreds of milliseconds.
func TestSteadyStreamWithDefaults(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, nil)
		runStream(h, time.Millisecond, 5*time.Microsecond, 400)
		st := h.e.Stats()
		if p99 := st.Lag.Quantile(0.99); p99 > 50*time.Millisecond || st.Backoff.Pauses != 0 {
			t.Errorf("lag p99 %v with %d pauses, want under 50ms and none", p99, st.Backoff.Pauses)
		}
	})
}
