package expiry

import (
	"fmt"
	"log/slog"
	"time"
)

// Config configures an Engine. Start from DefaultConfig; New fills a nil
// Now, a nil Logger, zero durations and numbers, and an all-zero Params
// with the defaults, then validates.
type Config struct {
	// Now is the clock. The sweeper also sleeps with the time package's
	// timers for durations computed from Now, so Now must advance with real
	// (or synctest) time: time.Now, or time.Now plus a growing offset.
	Now func() time.Time
	// Logger receives source errors (at Error level) and pass summaries (at
	// Debug level).
	Logger *slog.Logger
	// Params are the initial runtime parameters.
	Params Params
	// MinPeriod is the least time between the end of one pass and the start
	// of the next, so writes that become due close together are reaped in
	// one pass. Default 10ms.
	MinPeriod time.Duration
	// ErrorRetry is how long a source whose NextDue or ReapBatch failed is left
	// alone before it is tried again. Default 1s.
	ErrorRetry time.Duration
	// BacklogInterval is the least time between two CountDue calls on the
	// same source during a long pass. Default 1s.
	BacklogInterval time.Duration
	// Backoff configures the foreground-latency back-off.
	Backoff BackoffConfig
	// OnReaped, if set, is called on the sweeper goroutine after every
	// ReapBatch call that deleted at least one item. It must return quickly and must
	// not call Close. It is the hook for expiry events and, later,
	// replication.
	OnReaped func(source string, r Reaped)
	// Idle, if set, runs the part of each batch that sources hand to
	// Batch.Prepare (reading and deciding, without a lock that foreground
	// requests wait for) at the operating system's idle priority, falling
	// back to the sweeper's own thread while it is starved; idle.go states
	// the rule.
	Idle Idle
}

// BackoffConfig is the controller that paces the sweeper by foreground
// latency; the backoff type states the rule in full. A zero field means its default.
type BackoffConfig struct {
	// Window is the least span of one foreground-latency window. Default
	// 500ms.
	Window time.Duration
	// MinSamples is the least number of ObserveForeground calls in a window
	// before it is judged; a window with fewer stays open (up to four
	// Windows, then it is judged calm). Default 20.
	MinSamples int
	// Factor: a window with deletions is slow when its p90 exceeds Factor
	// × the baseline. Default 2.
	Factor float64
	// Floor: a window whose p90 is at or below Floor is never slow, so
	// noise at microsecond latencies does not slow the sweeper. Default
	// 50µs.
	Floor time.Duration
	// MaxLevel bounds the level: the sweeper never works less than
	// 2^-MaxLevel of the time, 1..20. Default 6 (1/64).
	MaxLevel int
	// StartLevel is the least level of the first paced batch (past its
	// pass's Burst) after a window with foreground requests and no paced
	// deletion, so a storm goes on past its Burst at 2^-StartLevel of full
	// speed and speeds up while the foreground stays calm. 0..MaxLevel;
	// default 1 (half speed).
	StartLevel float64
	// Recover is how far a calm window lowers the level (a slow one raises
	// it by up to 1, halving the duty). Default 0.5.
	Recover float64
	// BatchTime, if positive, bounds one batch while foreground requests
	// are watched: a batch holds at most about BatchTime's worth of items
	// at the pace of the previous batch (but at least BatchSize/8), so the
	// locks it takes are held briefly. Default 0: off, since every batch
	// queues for those locks behind the clients (kv's store lock serves
	// waiters in turn), so shorter batches pay that wait more often and
	// fall further behind.
	BatchTime time.Duration
	// LagBound bounds how far the controller lets deletions fall behind to
	// spare the foreground: while the items a batch deletes are late by
	// lag, the level is at most MaxLevel·(1 − lag/LagBound), so the duty
	// climbs from 2^-MaxLevel back to full speed as the lag nears
	// LagBound. Default 500ms, so that a steady load is deleted within
	// the 1s lag the engine promises (at the rate it needs, the cap settles
	// below the bound), even under a foreground that every batch slows
	// (requests wait for the store's lock while a batch holds it). A
	// negative LagBound turns the bound off.
	LagBound time.Duration
	// Burst is how long a pass runs unpaced: its batches within Burst of
	// the pass's start run at full size with no pause, at normal priority
	// (Config.Idle is not used), and do not count toward the verdict on a
	// window. A pass that ends within Burst is a load the sweeper keeps up
	// with, which pacing would only make later (the work is the same); a
	// longer pass is a storm and is paced past its Burst. Default 100ms
	// (BENCHMARKS.md, "The expiry engine's lag when it keeps up"). A
	// negative Burst paces every batch.
	Burst time.Duration
	// Disabled turns the controller off: ObserveForeground is still cheap
	// but its samples are ignored, and the sweeper always runs at full
	// speed.
	Disabled bool
}

// DefaultBackoff returns the default controller.
func DefaultBackoff() BackoffConfig {
	return BackoffConfig{
		Window:     500 * time.Millisecond,
		MinSamples: 20,
		Factor:     2,
		Floor:      50 * time.Microsecond,
		MaxLevel:   6,
		StartLevel: 1,
		Recover:    0.5,
		LagBound:   500 * time.Millisecond,
		Burst:      100 * time.Millisecond,
	}
}

// DefaultConfig returns the configuration a new server uses.
func DefaultConfig() Config {
	return Config{
		Now:             time.Now,
		Logger:          slog.New(slog.DiscardHandler),
		Params:          DefaultParams(),
		MinPeriod:       10 * time.Millisecond,
		ErrorRetry:      time.Second,
		BacklogInterval: time.Second,
		Backoff:         DefaultBackoff(),
	}
}

// ensureDefaults fills unset fields from DefaultConfig.
func (c *Config) ensureDefaults() {
	d := DefaultConfig()
	if c.Now == nil {
		c.Now = d.Now
	}
	if c.Logger == nil {
		c.Logger = d.Logger
	}
	if c.Params == (Params{}) {
		c.Params = d.Params
	}
	if c.MinPeriod == 0 {
		c.MinPeriod = d.MinPeriod
	}
	if c.ErrorRetry == 0 {
		c.ErrorRetry = d.ErrorRetry
	}
	if c.BacklogInterval == 0 {
		c.BacklogInterval = d.BacklogInterval
	}
	c.Backoff.ensureDefaults()
}

func (b *BackoffConfig) ensureDefaults() {
	d := DefaultBackoff()
	if b.Window == 0 {
		b.Window = d.Window
	}
	if b.MinSamples == 0 {
		b.MinSamples = d.MinSamples
	}
	if b.Factor == 0 {
		b.Factor = d.Factor
	}
	if b.Floor == 0 {
		b.Floor = d.Floor
	}
	if b.MaxLevel == 0 {
		b.MaxLevel = d.MaxLevel
	}
	if b.StartLevel == 0 {
		b.StartLevel = min(d.StartLevel, float64(b.MaxLevel))
	}
	if b.Recover == 0 {
		b.Recover = d.Recover
	}
	if b.LagBound == 0 {
		b.LagBound = d.LagBound
	}
	if b.Burst == 0 {
		b.Burst = d.Burst
	}
}

// Validate reports the first invalid field, wrapping ErrInvalidConfig (and
// the *ParamError of an invalid parameter).
func (c Config) Validate() error {
	if c.Now == nil {
		return fmt.Errorf("%w: Now is nil", ErrInvalidConfig)
	}
	if c.Logger == nil {
		return fmt.Errorf("%w: Logger is nil", ErrInvalidConfig)
	}
	if err := c.Params.Validate(); err != nil {
		return fmt.Errorf("%w: %w", ErrInvalidConfig, err)
	}
	if c.MinPeriod < 0 {
		return fmt.Errorf("%w: MinPeriod %v is negative", ErrInvalidConfig, c.MinPeriod)
	}
	if c.ErrorRetry < 0 {
		return fmt.Errorf("%w: ErrorRetry %v is negative", ErrInvalidConfig, c.ErrorRetry)
	}
	if c.BacklogInterval < 0 {
		return fmt.Errorf("%w: BacklogInterval %v is negative", ErrInvalidConfig, c.BacklogInterval)
	}
	return c.Backoff.validate()
}

func (b BackoffConfig) validate() error {
	switch {
	case b.Disabled:
		return nil
	case b.MaxLevel < 1 || b.MaxLevel > 20:
		return fmt.Errorf("%w: Backoff.MaxLevel %d is outside 1..20", ErrInvalidConfig, b.MaxLevel)
	case b.Window <= 0:
		return fmt.Errorf("%w: Backoff.Window %v is not positive", ErrInvalidConfig, b.Window)
	case b.MinSamples < 1:
		return fmt.Errorf("%w: Backoff.MinSamples %d is less than 1", ErrInvalidConfig, b.MinSamples)
	case !(b.Factor >= 1):
		return fmt.Errorf("%w: Backoff.Factor %v is less than 1", ErrInvalidConfig, b.Factor)
	case b.Floor < 0:
		return fmt.Errorf("%w: Backoff.Floor %v is negative", ErrInvalidConfig, b.Floor)
	case !(b.StartLevel >= 0 && b.StartLevel <= float64(b.MaxLevel)):
		return fmt.Errorf("%w: Backoff.StartLevel %v is outside 0..MaxLevel", ErrInvalidConfig, b.StartLevel)
	case !(b.Recover > 0 && b.Recover <= 1):
		return fmt.Errorf("%w: Backoff.Recover %v is outside (0, 1]", ErrInvalidConfig, b.Recover)
	case b.BatchTime < 0:
		return fmt.Errorf("%w: Backoff.BatchTime %v is negative", ErrInvalidConfig, b.BatchTime)
	}
	return nil
}
