package expiry_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mayfly/mayfly/internal/expiry"
)

// reapTimes returns, for each ReapBatch call that deleted something, its time
// relative to t0 and the number deleted.
func reapTimes(src *fakeSource, t0 time.Time) (at []time.Duration, n []int) {
	for _, c := range src.reapCalls() {
		if c.Deleted > 0 {
			at = append(at, c.At.Sub(t0))
			n = append(n, c.Deleted)
		}
	}
	return at, n
}

func TestWakePrecision(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, nil)
		t0 := h.clk.Now()
		src := newFake("redis_keys:db0", expiry.KindRedisKeys, h.clk)
		src.add(t0.Add(5*time.Second), t0.Add(5*time.Second+3*time.Millisecond), t0.Add(7*time.Second))
		h.register(src)
		h.start()
		defer h.stop()

		advance(10 * time.Second)
		at, n := reapTimes(src, t0)
		// The item due at 5s goes at 5s exactly; the one due 3ms later
		// waits for MinPeriod (10ms) after that pass; the last at 7s.
		want := []time.Duration{5 * time.Second, 5*time.Second + 10*time.Millisecond, 7 * time.Second}
		if !slices.Equal(at, want) || !slices.Equal(n, []int{1, 1, 1}) {
			t.Fatalf("reaps at %v deleting %v, want at %v deleting 1 each", at, n, want)
		}
		st := h.e.Stats()
		if st.Lag.Count != 3 || st.Lag.Max != 7*time.Millisecond {
			t.Errorf("lag count %d max %v, want 3 and 7ms", st.Lag.Count, st.Lag.Max)
		}
		if got := st.Kind(expiry.KindRedisKeys).DeletedItems; got != 3 {
			t.Errorf("redis_keys deleted %d, want 3", got)
		}
	})
}

func TestWakeDuringLongSleep(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, nil)
		t0 := h.clk.Now()
		src := newFake("ttl_index:app.sessions.exp_1", expiry.KindTTLIndex, h.clk)
		src.add(t0.Add(time.Hour))
		h.register(src)
		h.start()
		defer h.stop()

		advance(10 * time.Second)
		if got, want := h.e.Stats().NextWake, t0.Add(60*time.Second); !got.Equal(want) {
			t.Fatalf("NextWake = %v, want the ttlMonitorSleepSecs bound %v", got.Sub(t0), want.Sub(t0))
		}
		src.add(t0.Add(15 * time.Second))
		h.e.Wake(t0.Add(15 * time.Second))
		synctest.Wait()
		if got, want := h.e.Stats().NextWake, t0.Add(15*time.Second); !got.Equal(want) {
			t.Fatalf("NextWake after Wake = %v, want %v", got.Sub(t0), want.Sub(t0))
		}
		// A later due time does not move the deadline.
		h.e.Wake(t0.Add(40 * time.Second))
		synctest.Wait()
		if got, want := h.e.Stats().NextWake, t0.Add(15*time.Second); !got.Equal(want) {
			t.Fatalf("NextWake after a later Wake = %v, want %v", got.Sub(t0), want.Sub(t0))
		}
		advance(10 * time.Second)
		at, _ := reapTimes(src, t0)
		if !slices.Equal(at, []time.Duration{15 * time.Second}) {
			t.Fatalf("reaped at %v, want [15s]", at)
		}
	})
}

func TestWriteWithoutWakeFoundByPeriodicPass(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, nil)
		t0 := h.clk.Now()
		src := newFake("ttl_index:app.c.x_1", expiry.KindTTLIndex, h.clk)
		h.register(src)
		h.start()
		defer h.stop()

		advance(10 * time.Second)
		src.add(t0.Add(15 * time.Second)) // no Wake
		advance(60 * time.Second)
		at, _ := reapTimes(src, t0)
		if !slices.Equal(at, []time.Duration{60 * time.Second}) {
			t.Fatalf("reaped at %v, want [1m0s] (the periodic pass)", at)
		}
	})
}

func TestSleepSecsChangeWakesSweeper(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, nil)
		h.start()
		defer h.stop()

		if got := h.e.Stats().Passes; got != 1 {
			t.Fatalf("passes after start = %d, want 1", got)
		}
		advance(10 * time.Second)
		old, err := h.e.SetParameter(expiry.ParamSleepSecs, int32(5))
		if err != nil || old != int32(60) {
			t.Fatalf("SetParameter = %v, %v; want was 60", old, err)
		}
		synctest.Wait()
		// The deadline is recomputed as sleep start + 5s, already past.
		if got := h.e.Stats().Passes; got != 2 {
			t.Fatalf("passes right after lowering ttlMonitorSleepSecs = %d, want 2", got)
		}
		advance(4900 * time.Millisecond)
		if got := h.e.Stats().Passes; got != 2 {
			t.Fatalf("passes 4.9s later = %d, want 2", got)
		}
		advance(100 * time.Millisecond)
		if got := h.e.Stats().Passes; got != 3 {
			t.Fatalf("passes 5s later = %d, want 3", got)
		}
		// Raising it moves the deadline out from the same sleep start.
		if _, err := h.e.SetParameter(expiry.ParamSleepSecs, 30); err != nil {
			t.Fatal(err)
		}
		advance(29 * time.Second)
		if got := h.e.Stats().Passes; got != 3 {
			t.Fatalf("passes 29s after raising = %d, want 3", got)
		}
		advance(time.Second)
		if got := h.e.Stats().Passes; got != 4 {
			t.Fatalf("passes 30s after raising = %d, want 4", got)
		}
	})
}

func TestPassesWhileIdle(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, func(c *expiry.Config) { c.Params.SleepSecs = 1 })
		h.start()
		defer h.stop()
		// MongoDB's TTLUtil.waitForPass waits for two increments.
		start := h.e.Stats().Passes
		advance(2500 * time.Millisecond)
		st := h.e.Stats()
		if st.Passes-start != 2 {
			t.Fatalf("passes went %d -> %d in 2.5s idle, want +2", start, st.Passes)
		}
		if st.SubPasses != st.Passes {
			t.Errorf("subPasses = %d, want one per idle pass (%d)", st.SubPasses, st.Passes)
		}
	})
}

func TestMonitorDisabled(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, func(c *expiry.Config) { c.Params.MonitorEnabled = false })
		t0 := h.clk.Now()
		src := newFake("policy:events.ts", expiry.KindPolicy, h.clk)
		src.addN(10, t0)
		h.register(src)
		h.start()
		defer h.stop()

		h.e.Wake(t0)
		advance(3 * time.Minute)
		if st := h.e.Stats(); st.Passes != 0 || st.SubPasses != 0 || src.len() != 10 {
			t.Fatalf("disabled monitor: passes %d subPasses %d items left %d; want 0, 0, 10", st.Passes, st.SubPasses, src.len())
		}
		if _, err := h.e.SetParameter(expiry.ParamMonitorEnabled, true); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		if st := h.e.Stats(); st.Passes != 1 || src.len() != 0 {
			t.Fatalf("after enabling: passes %d, items left %d; want 1, 0", st.Passes, src.len())
		}
	})
}

func TestDisableStopsPassMidway(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, nil)
		t0 := h.clk.Now()
		src := newFake("ttl_index:a", expiry.KindTTLIndex, h.clk)
		src.addN(10_000, t0)
		src.onReap = func(n int) {
			if n == 3 {
				if _, err := h.e.SetParameter(expiry.ParamMonitorEnabled, false); err != nil {
					t.Error(err)
				}
			}
		}
		h.register(src)
		h.start()
		defer h.stop()
		advance(time.Minute)
		if got := len(src.reapCalls()); got != 4 {
			t.Errorf("ReapBatch calls = %d, want 4 (the sweeper stops after the batch that disabled it)", got)
		}
		if st := h.e.Stats(); st.Passes != 0 || st.AbandonedPasses != 1 {
			t.Errorf("passes = %d, abandoned %d; want 0 and 1: an abandoned pass does not count", st.Passes, st.AbandonedPasses)
		}
	})
}

func TestRunLifecycle(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, nil)
		h.start()
		if err := h.e.Run(context.Background()); !errors.Is(err, expiry.ErrRunning) {
			t.Errorf("second Run = %v, want ErrRunning", err)
		}
		if !h.e.Stats().Running {
			t.Error("Stats.Running = false while running")
		}
		h.stop()
		if err := h.e.Run(context.Background()); !errors.Is(err, expiry.ErrClosed) {
			t.Errorf("Run after Close = %v, want ErrClosed", err)
		}
		if err := h.e.Close(); !errors.Is(err, expiry.ErrClosed) {
			t.Errorf("second Close = %v, want ErrClosed", err)
		}
	})
}

func TestRunStopsOnContextCancel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, nil)
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan error, 1)
		go func() { done <- h.e.Run(ctx) }()
		synctest.Wait()
		cancel()
		if err := <-done; err != nil {
			t.Fatalf("Run = %v, want nil", err)
		}
		if h.e.Stats().Running {
			t.Error("Running after Run returned")
		}
		// Not closed: Run can start again.
		ctx2, cancel2 := context.WithCancel(t.Context())
		go func() { done <- h.e.Run(ctx2) }()
		synctest.Wait()
		cancel2()
		if err := <-done; err != nil {
			t.Fatalf("second Run = %v, want nil", err)
		}
	})
}

func TestRegisterWakesSweeper(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, nil)
		t0 := h.clk.Now()
		h.start()
		defer h.stop()
		advance(20 * time.Second)
		src := newFake("redis_field:db0", expiry.KindRedisField, h.clk)
		src.addN(5, t0)
		h.register(src)
		synctest.Wait()
		if src.len() != 0 {
			t.Fatalf("%d items left after Register, want 0", src.len())
		}
		if err := h.e.Register(newFake("redis_field:db0", expiry.KindRedisField, h.clk)); !errors.Is(err, expiry.ErrDuplicateSource) {
			t.Errorf("duplicate Register = %v, want ErrDuplicateSource", err)
		}
		if err := h.e.Register(newFake("", expiry.KindRedisField, h.clk)); !errors.Is(err, expiry.ErrInvalidSource) {
			t.Errorf("Register with empty name = %v, want ErrInvalidSource", err)
		}
	})
}

func TestWakeDuringPassIsKept(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, func(c *expiry.Config) { c.Params.DeleteTargetDocs = 0 })
		t0 := h.clk.Now()
		a := newFake("a", expiry.KindTTLIndex, h.clk)
		a.perBatch = 100 * time.Millisecond
		a.addN(3000, t0)
		b := newFake("b", expiry.KindTTLIndex, h.clk)
		a.onReap = func(n int) {
			if n == 0 {
				// b was asked already (nothing due); this write is only
				// known through the hint.
				b.add(t0.Add(50 * time.Millisecond))
				h.e.Wake(t0.Add(50 * time.Millisecond))
			}
		}
		h.register(a, b)
		h.start()
		defer h.stop()
		advance(time.Second)
		at, _ := reapTimes(b, t0)
		// The pass ran from 0 to 300ms; b's item goes MinPeriod later.
		if !slices.Equal(at, []time.Duration{310 * time.Millisecond}) {
			t.Fatalf("b reaped at %v, want [310ms]", at)
		}
	})
}

// TestConcurrentWritersNoLostWakeups has writers add items due soon and call
// Wake while the sweeper runs; every item must go within MinPeriod of its
// due time, so no wake-up was lost.
func TestConcurrentWritersNoLostWakeups(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, nil)
		src := newFake("redis_keys:db0", expiry.KindRedisKeys, h.clk)
		h.register(src)
		h.start()
		defer h.stop()

		var wg sync.WaitGroup
		for w := range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				rng := rand.New(rand.NewPCG(uint64(w), 7))
				for range 200 {
					<-time.After(time.Duration(rng.IntN(20_000)) * time.Microsecond)
					due := h.clk.Now().Add(time.Duration(rng.IntN(100)) * time.Millisecond)
					src.add(due)
					h.e.Wake(due)
				}
			}()
		}
		wg.Wait()
		advance(time.Second)
		if src.len() != 0 {
			t.Fatalf("%d items left", src.len())
		}
		st := h.e.Stats()
		if st.DeletedItems != 800 || st.Lag.Max > 10*time.Millisecond {
			t.Fatalf("deleted %d, max lag %v; want 800 and at most MinPeriod (10ms)", st.DeletedItems, st.Lag.Max)
		}
	})
}
