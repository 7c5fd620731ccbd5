package expiry_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mayfly/mayfly/internal/expiry"
)

// preparingSource is a fake source that hands a preparation step of every
// batch to Batch.RunPrepare, as the TTL index reaper does.
type preparingSource struct {
	*fakeSource
	prepared atomic.Int64 // preparations run, wherever they ran
}

func (p *preparingSource) ReapBatch(ctx context.Context, now time.Time, b expiry.Batch) (expiry.Reaped, error) {
	b.RunPrepare(func() { p.prepared.Add(1) })
	return p.fakeSource.ReapBatch(ctx, now, b)
}

// fakeIdle runs f inline and reports the CPU and wall time its next
// answers say, or a CPU time equal to a 1ms wall time once they run out;
// Spare is spare (the whole machine when zero).
type fakeIdle struct {
	mu      sync.Mutex
	calls   int
	answers [][2]time.Duration // cpu, wall
	spare   float64
}

func (f *fakeIdle) Spare() float64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.spare == 0 {
		return 1
	}
	return f.spare
}

func (f *fakeIdle) setSpare(v float64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.spare = v
}

func (f *fakeIdle) Do(fn func()) (cpu, wall time.Duration) {
	fn()
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	if len(f.answers) == 0 {
		return time.Millisecond, time.Millisecond
	}
	a := f.answers[0]
	f.answers = f.answers[1:]
	return a[0], a[1]
}

func (f *fakeIdle) doCalls() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls
}

// startPreparing starts an engine with batches of 10, every one paced (no
// Burst), idle as its Config.Idle (none when nil), and one preparingSource
// holding n[i] items due at each due[i] after the start; the test must
// defer h.stop.
func startPreparing(t *testing.T, idle *fakeIdle, due []time.Duration, n []int) (*harness, *preparingSource) {
	t.Helper()
	h := newHarness(t, func(c *expiry.Config) {
		if idle != nil {
			c.Idle = idle
		}
		c.Params.BatchSize = 10
		c.Backoff.Burst = -1
	})
	t0 := h.clk.Now()
	src := &preparingSource{fakeSource: newFake("ttl:db.c.expireAt_1", expiry.KindTTLIndex, h.clk)}
	for i := range due {
		src.addN(n[i], t0.Add(due[i]))
	}
	h.register(src)
	h.start()
	return h, src
}

// Preparations go to Config.Idle; one that got less than a tenth of its
// wall time (of at least 20ms) as CPU moves them to the sweeper's own
// thread for a second, and then they go back.
func TestIdlePrepareAndStarvation(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		idle := &fakeIdle{answers: [][2]time.Duration{
			{time.Millisecond, 10 * time.Millisecond},      // short: never starved
			{10 * time.Millisecond, 40 * time.Millisecond}, // a quarter: not starved
			{time.Millisecond, 50 * time.Millisecond},      // starved
		}}
		h, src := startPreparing(t, idle, []time.Duration{time.Second, 1500 * time.Millisecond, 2100 * time.Millisecond}, []int{60, 20, 20})
		defer h.stop()

		// At 1s: six batches; the third is starved, so the last three
		// prepare on the sweeper's thread.
		advance(time.Second)
		if got := idle.doCalls(); got != 3 || src.prepared.Load() != 6 {
			t.Fatalf("after the first pass: %d preparations, %d on the idle thread; want 6 and 3", src.prepared.Load(), got)
		}
		// At 1.5s, within the second after the starved one: the sweeper's
		// thread still.
		advance(500 * time.Millisecond)
		if got := idle.doCalls(); got != 3 || src.prepared.Load() != 8 {
			t.Fatalf("at 1.5s: %d preparations, %d on the idle thread; want 8 and 3", src.prepared.Load(), got)
		}
		// At 2.1s the hold is over: back to the idle thread.
		advance(600 * time.Millisecond)
		if got := idle.doCalls(); got != 5 || src.prepared.Load() != 10 {
			t.Fatalf("at 2.1s: %d preparations, %d on the idle thread; want 10 and 5", src.prepared.Load(), got)
		}
		st := h.e.Stats().Prepare
		want := expiry.PrepareStats{Idle: 5, IdleCPU: 14 * time.Millisecond, IdleWall: 102 * time.Millisecond, Normal: 5, Starved: 1}
		if st != want {
			t.Errorf("Stats().Prepare = %+v, want %+v", st, want)
		}
	})
}

// Without Config.Idle every preparation runs on the sweeper's thread.
func TestPrepareWithoutIdle(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h, src := startPreparing(t, nil, []time.Duration{time.Second}, []int{30})
		defer h.stop()
		advance(time.Second)
		if st := h.e.Stats().Prepare; src.prepared.Load() != 3 || st != (expiry.PrepareStats{Normal: 3}) {
			t.Errorf("%d preparations, Stats().Prepare = %+v; want 3, all normal", src.prepared.Load(), st)
		}
	})
}

// While the foreground leaves less than a quarter of the CPUs, the
// preparations run on the sweeper's thread without trying the idle one.
func TestIdlePrepareWhenForegroundBusy(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		idle := &fakeIdle{spare: 0.2}
		h, src := startPreparing(t, idle, []time.Duration{time.Second, 2 * time.Second}, []int{30, 20})
		defer h.stop()

		advance(time.Second)
		if got := idle.doCalls(); got != 0 || src.prepared.Load() != 3 {
			t.Fatalf("busy foreground: %d preparations, %d on the idle thread; want 3 and 0", src.prepared.Load(), got)
		}
		idle.setSpare(0.25)
		advance(time.Second)
		if got := idle.doCalls(); got != 2 || src.prepared.Load() != 5 {
			t.Fatalf("a quarter spare: %d preparations, %d on the idle thread; want 5 and 2", src.prepared.Load(), got)
		}
		st := h.e.Stats().Prepare
		if st.Idle != 2 || st.Normal != 3 || st.Busy != 3 || st.Starved != 0 {
			t.Errorf("Stats().Prepare = %+v, want 2 idle, 3 normal, all 3 busy", st)
		}
	})
}
