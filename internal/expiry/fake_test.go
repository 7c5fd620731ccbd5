package expiry_test

import (
	"bytes"
	"context"
	"log/slog"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mayfly/mayfly/internal/expiry"
)

// clock is time.Now plus an offset that fake sources advance to model the
// time a storage batch takes. Inside a synctest bubble time.Now is the
// bubble's fake clock, so timers and Now stay consistent.
type clock struct{ off atomic.Int64 }

func (c *clock) Now() time.Time          { return time.Now().Add(time.Duration(c.off.Load())) }
func (c *clock) Advance(d time.Duration) { c.off.Add(int64(d)) }

// call records one ReapBatch call of a fake source.
type call struct {
	Batch    expiry.Batch
	Deadline time.Time // the deadline of the engine's visit (zero: none)
	First    bool      // the call is the first of its visit
	At       time.Time // the clock when ReapBatch was entered
	Deleted  int
}

// fakeSource is an in-memory source: a sorted slice of due times in Unix
// ms. It honours the whole ReapBatch contract: one batch of at most Max
// items, earliest first, More when due items remain.
type fakeSource struct {
	name string
	kind expiry.Kind
	clk  *clock

	mu       sync.Mutex
	items    []int64
	calls    []call
	perBatch time.Duration   // clock advance per storage batch
	perItem  time.Duration   // clock advance per item deleted
	onReap   func(nCall int) // called inside ReapBatch, before deleting, with the 0-based call number
	reapErr  error           // returned by the next ReapBatch
	nextErr  error           // returned by the next NextDue
	stuck    bool            // report More without deleting (a broken source)

	// The engine's view of the next call, from its batch hook.
	nextDeadline time.Time
	nextFirst    bool
}

func newFake(name string, kind expiry.Kind, clk *clock) *fakeSource {
	return &fakeSource{name: name, kind: kind, clk: clk}
}

func (f *fakeSource) Name() string      { return f.name }
func (f *fakeSource) Kind() expiry.Kind { return f.kind }

// add inserts items due at the given times.
func (f *fakeSource) add(due ...time.Time) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, d := range due {
		f.items = append(f.items, d.UnixMilli())
	}
	slices.Sort(f.items)
}

// addN inserts n items all due at due.
func (f *fakeSource) addN(n int, due time.Time) {
	f.mu.Lock()
	defer f.mu.Unlock()
	ms := due.UnixMilli()
	for range n {
		f.items = append(f.items, ms)
	}
	slices.Sort(f.items)
}

func (f *fakeSource) len() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.items)
}

func (f *fakeSource) reapCalls() []call {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.calls)
}

func (f *fakeSource) NextDue(context.Context) (time.Time, bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.nextErr; err != nil {
		f.nextErr = nil
		return time.Time{}, false, err
	}
	if len(f.items) == 0 {
		return time.Time{}, false, nil
	}
	return time.UnixMilli(f.items[0]), true, nil
}

func (f *fakeSource) ReapBatch(ctx context.Context, now time.Time, b expiry.Batch) (expiry.Reaped, error) {
	f.mu.Lock()
	n := len(f.calls)
	f.calls = append(f.calls, call{Batch: b, Deadline: f.nextDeadline, First: f.nextFirst, At: f.clk.Now()})
	hook := f.onReap
	f.mu.Unlock()
	if hook != nil {
		hook(n)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.reapErr; err != nil {
		f.reapErr = nil
		return expiry.Reaped{}, err
	}
	due := sort.Search(len(f.items), func(i int) bool { return f.items[i] > now.UnixMilli() })
	if f.stuck {
		return expiry.Reaped{More: due > 0}, nil
	}
	k := min(due, b.Max)
	if k > 0 {
		f.clk.Advance(f.perBatch + time.Duration(k)*f.perItem)
	}
	r := expiry.Reaped{Items: k, Keys: 2 * k, Due: f.items[:k:k], More: k < due}
	f.items = f.items[k:]
	f.calls[n].Deleted = k
	return r, ctx.Err()
}

// setNext records what the engine's batch hook says of the next call.
func (f *fakeSource) setNext(deadline time.Time, first bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.nextDeadline, f.nextFirst = deadline, first
}

// countingSource is a fakeSource that also implements expiry.Counter.
type countingSource struct{ *fakeSource }

func (c countingSource) CountDue(_ context.Context, now time.Time) (int64, time.Time, time.Time, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := sort.Search(len(c.items), func(i int) bool { return c.items[i] > now.UnixMilli() })
	if n == 0 {
		return 0, time.Time{}, time.Time{}, nil
	}
	return int64(n), time.UnixMilli(c.items[0]), time.UnixMilli(c.items[n-1]), nil
}

// syncBuffer is a bytes.Buffer safe for a logger and a test to share.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// harness runs an engine inside a synctest bubble.
type harness struct {
	t     *testing.T
	mu    sync.Mutex
	fakes map[string]*fakeSource // registered fake sources, for the batch hook
	clk   *clock
	e     *expiry.Engine
	logs  *syncBuffer
	done  chan error
}

// newHarness builds an engine with the clock and a text logger; edit may
// change the config. It does not start Run.
func newHarness(t *testing.T, edit func(*expiry.Config)) *harness {
	t.Helper()
	h := &harness{t: t, clk: &clock{}, logs: &syncBuffer{}}
	cfg := expiry.DefaultConfig()
	cfg.Now = h.clk.Now
	cfg.Logger = slog.New(slog.NewTextHandler(h.logs, &slog.HandlerOptions{Level: slog.LevelWarn}))
	if edit != nil {
		edit(&cfg)
	}
	e, err := expiry.New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	h.e = e
	h.fakes = map[string]*fakeSource{}
	e.SetBatchHook(func(source string, _, deadline time.Time, first bool) {
		h.mu.Lock()
		f := h.fakes[source]
		h.mu.Unlock()
		if f != nil {
			f.setNext(deadline, first)
		}
	})
	return h
}

// start runs the sweeper and waits until it blocks; the test must defer
// stop.
func (h *harness) start() {
	h.t.Helper()
	h.done = make(chan error, 1)
	go func() { h.done <- h.e.Run(context.Background()) }()
	synctest.Wait()
}

// stop closes the engine and checks Run's result.
func (h *harness) stop() {
	h.t.Helper()
	if err := h.e.Close(); err != nil {
		h.t.Errorf("Close: %v", err)
	}
	if h.done != nil {
		if err := <-h.done; err != nil {
			h.t.Errorf("Run returned %v, want nil", err)
		}
	}
}

func (h *harness) register(srcs ...expiry.Source) {
	h.t.Helper()
	for _, s := range srcs {
		if f := asFake(s); f != nil {
			h.mu.Lock()
			h.fakes[s.Name()] = f
			h.mu.Unlock()
		}
		if err := h.e.Register(s); err != nil {
			h.t.Fatalf("Register(%s): %v", s.Name(), err)
		}
	}
}

// advance lets the bubble's fake time run for d and then waits until every
// goroutine in the bubble is blocked again.
func advance(d time.Duration) {
	<-time.After(d)
	synctest.Wait()
}

// asFake returns the fakeSource behind s, or nil.
func asFake(s expiry.Source) *fakeSource {
	switch f := s.(type) {
	case *fakeSource:
		return f
	case countingSource:
		return f.fakeSource
	case *preparingSource:
		return f.fakeSource
	case catchUpSource:
		return f.fakeSource
	}
	return nil
}
