package expiry

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"sync"
	"sync/atomic"
	"time"
)

// Engine is the shared expiry engine: a registry of sources and the one
// sweeper goroutine (Run) that reaps them. All methods are safe for
// concurrent use.
type Engine struct {
	now      func() time.Time
	log      *slog.Logger
	cfg      Config
	onReaped func(string, Reaped)

	params   atomic.Pointer[Params]
	paramsMu sync.Mutex // serialises SetParams and SetParameter

	// wakeCh carries a wake-up to the sleeping sweeper (capacity 1, sends
	// never block).
	wakeCh chan struct{}
	// hint is the earliest due time (Unix ms) passed to Wake since the
	// sweeper last consumed it; math.MaxInt64 when none.
	hint atomic.Int64
	// sleepUntil is the Unix ms the sweeper sleeps until; Wake signals only
	// for an earlier due time. math.MinInt64 while no signal can help (a
	// pass is running, the sleep is already as short as MinPeriod allows,
	// or the monitor is disabled).
	sleepUntil atomic.Int64

	fg foreground

	// batchHook, set only by tests before Run, sees every ReapBatch call
	// the sweeper is about to make: the source, the time, the visit's
	// deadline (zero: none) and whether it is the visit's first batch.
	batchHook func(source string, at, deadline time.Time, first bool)

	// sw is the sweeper's own state, touched only by the goroutine in Run.
	sw sweeper

	mu      sync.Mutex // guards the fields below and every sourceState's guarded fields
	sources map[string]*sourceState
	order   []*sourceState // registration order
	kinds   map[Kind]*kindCounters
	tot     totals
	pub     published
	closed  bool
	running bool
	stopRun context.CancelFunc
	runDone chan struct{}
}

// sourceState is the engine's record of one registered source.
type sourceState struct {
	src     Source
	name    string
	kind    Kind
	counter Counter // nil when src does not implement Counter
	removed atomic.Bool

	// Used by the sweeper goroutine only.
	maxScale int // CatchUpFactor of a CatchUp source; 1 otherwise
	scale    int // current catch-up factor of its batches, 1..maxScale

	// Guarded by Engine.mu.
	known     bool  // nextDue and hasNext come from a NextDue call
	hasNext   bool  // the source holds an item that can expire
	nextDue   int64 // Unix ms of its earliest item
	retryAt   int64 // Unix ms before which the sweeper leaves it alone; 0 = none
	lastCount int64 // Unix ms of the last CountDue
	c         sourceCounters
}

type sourceCounters struct {
	items, keys, reaps, errors, capHits int64
	// batchedReaps counts the reaps of visits under ttlMonitorBatchDeletes.
	batchedReaps              int64
	reapTime                  time.Duration
	lag                       histogram
	backlog                   int64
	backlogKnown              bool
	backlogAt, oldest, newest time.Time
}

type kindCounters struct {
	items, keys int64
	// batchedItems counts the items deleted under ttlMonitorBatchDeletes.
	batchedItems int64
	lag          histogram
}

type totals struct {
	passes, subPasses, items, keys, reaps, errors, capHits, subPassCaps, stalls int64
	reapTime, rateWait, pauseTime                                               time.Duration
	pauses                                                                      int64
	lag                                                                         histogram
	// Batch.Prepare calls run on Config.Idle and on the sweeper's thread,
	// the idle ones' CPU and wall time, and how often the idle thread was
	// found starved.
	idlePrepares, normalPrepares, busyPrepares, idleStarved int64
	idleCPU, idleWall                                       time.Duration
}

// published is sweeper state copied under mu for Stats.
type published struct {
	rate                 float64
	level, duty          float64
	baseline, recent     time.Duration
	windows, slowWindows int64
	nextWake             time.Time
	inPass               bool
	lastPassStart        time.Time
	lastPassDuration     time.Duration
	passNow              time.Time
	abandoned            int64
}

// New returns an engine for cfg (see Config for the defaults it fills in).
// The sweeper starts with Run.
func New(cfg Config) (*Engine, error) {
	cfg.ensureDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	e := &Engine{
		now:      cfg.Now,
		log:      cfg.Logger,
		cfg:      cfg,
		onReaped: cfg.OnReaped,
		wakeCh:   make(chan struct{}, 1),
		sources:  make(map[string]*sourceState),
		kinds:    make(map[Kind]*kindCounters),
	}
	p := cfg.Params
	e.params.Store(&p)
	e.hint.Store(math.MaxInt64)
	e.sleepUntil.Store(math.MinInt64)
	e.sw.backoff.cfg = cfg.Backoff
	e.pub.duty = 1
	return e, nil
}

// Register adds a source. Its first NextDue call happens on the sweeper's
// next pass, which Register triggers (subject to MinPeriod). The name must
// be unique among registered sources.
func (e *Engine) Register(s Source) error {
	if s == nil {
		return fmt.Errorf("%w: nil", ErrInvalidSource)
	}
	name := s.Name()
	if name == "" {
		return fmt.Errorf("%w: empty name", ErrInvalidSource)
	}
	st := &sourceState{src: s, name: name, kind: s.Kind(), maxScale: 1, scale: 1}
	st.counter, _ = s.(Counter)
	if cu, ok := s.(CatchUp); ok {
		st.maxScale = min(max(cu.CatchUpFactor(), 1), maxCatchUpFactor)
	}
	e.mu.Lock()
	if _, dup := e.sources[name]; dup {
		e.mu.Unlock()
		return fmt.Errorf("%w: %q", ErrDuplicateSource, name)
	}
	e.sources[name] = st
	e.order = append(e.order, st)
	e.mu.Unlock()
	e.Wake(time.Time{})
	return nil
}

// Unregister removes the named source and reports whether it was
// registered. It does not wait: a ReapBatch call of that source already running
// finishes its batch, after which the sweeper calls the source no more.
// Counters per kind keep what the source deleted; its own stats go.
func (e *Engine) Unregister(name string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	st, ok := e.sources[name]
	if !ok {
		return false
	}
	st.removed.Store(true)
	delete(e.sources, name)
	for i, o := range e.order {
		if o == st {
			e.order = append(e.order[:i], e.order[i+1:]...)
			break
		}
	}
	return true
}

// Wake tells the sweeper that an item is now due at due (a writer calls it
// after the write that created or moved the item is visible). If due is
// earlier than the sweeper's current sleep deadline the sweeper wakes for
// it. Wake never blocks and takes no lock; the zero time means "now".
func (e *Engine) Wake(due time.Time) {
	d := int64(math.MinInt64)
	if !due.IsZero() {
		d = due.UnixMilli()
	}
	for {
		h := e.hint.Load()
		if d >= h {
			break
		}
		if e.hint.CompareAndSwap(h, d) {
			break
		}
	}
	if d < e.sleepUntil.Load() {
		e.signal()
	}
}

// signal wakes the sweeper without blocking.
func (e *Engine) signal() {
	select {
	case e.wakeCh <- struct{}{}:
	default:
	}
}

// ObserveForeground records the latency of one foreground request, which
// ends now; the back-off rule (backoff.go) compares the latencies of requests
// that ended during or just after the sweeper's batches with those of the
// others. It is
// lock-free: a clock read, two atomic loads and one atomic add.
func (e *Engine) ObserveForeground(d time.Duration) {
	e.fg.observe(e.now(), d)
}

// Params returns the current runtime parameters.
func (e *Engine) Params() Params { return *e.params.Load() }

// SetParams validates and installs p, then wakes the sweeper so a new
// ttlMonitorSleepSecs or ttlMonitorEnabled takes effect at once. The error
// is the first *ParamError.
func (e *Engine) SetParams(p Params) error {
	if err := p.Validate(); err != nil {
		return err
	}
	e.paramsMu.Lock()
	e.params.Store(&p)
	e.paramsMu.Unlock()
	e.signal()
	return nil
}

// GetParameter returns the named parameter's value as bool, int32 or int64
// (see Parameters). The error is a *ParamError wrapping
// ErrUnknownParameter.
func (e *Engine) GetParameter(name string) (any, error) {
	return e.params.Load().Get(name)
}

// SetParameter sets one parameter by its MongoDB name, converting value as
// Params.Set describes, and returns the previous value (setParameter's
// "was"). The error is a *ParamError wrapping ErrUnknownParameter or
// ErrBadValue.
func (e *Engine) SetParameter(name string, value any) (old any, err error) {
	e.paramsMu.Lock()
	p := *e.params.Load()
	if old, err = p.Get(name); err != nil {
		e.paramsMu.Unlock()
		return nil, err
	}
	if err = p.Set(name, value); err != nil {
		e.paramsMu.Unlock()
		return nil, err
	}
	e.params.Store(&p)
	e.paramsMu.Unlock()
	e.signal()
	return old, nil
}

// EstimateDuration estimates how long the sweeper would take to delete n
// items at its measured rate (capped by ttlMaxDeletesPerSecond when set);
// dry runs report it. It returns 0 when no rate is known yet (nothing
// reaped and no rate limit).
func (e *Engine) EstimateDuration(n int64) time.Duration {
	e.mu.Lock()
	rate := e.pub.rate
	e.mu.Unlock()
	return estimate(n, rate, e.params.Load().MaxDeletesPerSecond)
}

// Backlog is the number of due-but-present items of one source.
type Backlog struct {
	Source string
	Kind   Kind
	// Count is the number of items due at or before At.
	Count int64
	// Oldest and Newest are the range of their due times (zero when Count
	// is 0).
	Oldest, Newest time.Time
	// At is the time the count refers to.
	At time.Time
}

// CountDue asks every registered source that implements Counter how many
// of its items are due now, updates the backlog gauges with the answers,
// and returns them sorted by source name. Sources that fail are left out
// and their errors joined into the returned error.
func (e *Engine) CountDue(ctx context.Context) ([]Backlog, error) {
	now := e.now()
	e.mu.Lock()
	var list []*sourceState
	for _, st := range e.order {
		if st.counter != nil {
			list = append(list, st)
		}
	}
	e.mu.Unlock()
	var out []Backlog
	var errs []error
	for _, st := range list {
		n, oldest, newest, err := st.counter.CountDue(ctx, now)
		if err != nil {
			errs = append(errs, fmt.Errorf("count due %s: %w", st.name, err))
			continue
		}
		e.mu.Lock()
		st.setBacklog(n, oldest, newest, now)
		e.mu.Unlock()
		out = append(out, Backlog{Source: st.name, Kind: st.kind, Count: n, Oldest: oldest, Newest: newest, At: now})
	}
	sortBy(out, func(b Backlog) string { return b.Source })
	return out, errors.Join(errs...)
}

// RefreshBacklogs counts again, at the current time, the backlog of every
// registered Counter source whose gauge is unknown or older than
// Config.BacklogInterval, so that the gauges count what is due whether or
// not the sweeper runs (a disabled monitor, a long sleep between passes).
// A source that fails keeps an unknown gauge and its error is counted and
// logged as the sweeper's are.
func (e *Engine) RefreshBacklogs(ctx context.Context) {
	now := e.now()
	nowMs := now.UnixMilli()
	e.mu.Lock()
	var stale []*sourceState
	for _, st := range e.order {
		if st.counter != nil && (!st.c.backlogKnown || nowMs-st.c.backlogAt.UnixMilli() >= e.cfg.BacklogInterval.Milliseconds()) {
			stale = append(stale, st)
		}
	}
	e.mu.Unlock()
	for _, st := range stale {
		if ctx.Err() != nil {
			return
		}
		if !st.removed.Load() {
			e.countBacklog(ctx, st, now)
		}
	}
}

// setBacklog records a backlog measurement; e.mu must be held.
func (st *sourceState) setBacklog(n int64, oldest, newest, at time.Time) {
	st.c.backlog, st.c.backlogKnown = n, true
	st.c.oldest, st.c.newest, st.c.backlogAt = oldest, newest, at
	st.lastCount = at.UnixMilli()
}

// Close stops a running Run, waits for it to return, and makes later Run
// calls fail with ErrClosed. It must not be called from a Source method or
// OnReaped. A second Close returns ErrClosed.
func (e *Engine) Close() error {
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		return ErrClosed
	}
	e.closed = true
	stop, done := e.stopRun, e.runDone
	e.mu.Unlock()
	if stop != nil {
		stop()
		<-done
	}
	return nil
}
