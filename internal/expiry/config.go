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
	// ErrorRetry is how long a source whose NextDue or Reap failed is left
	// alone before it is tried again. Default 1s.
	ErrorRetry time.Duration
	// BacklogInterval is the least time between two CountDue calls on the
	// same source during a long pass. Default 1s.
	BacklogInterval time.Duration
	// Backoff configures the foreground-latency back-off.
	Backoff BackoffConfig
	// OnReaped, if set, is called on the sweeper goroutine after every Reap
	// call that deleted at least one item. It must return quickly and must
	// not call Close. It is the hook for expiry events and, later,
	// replication.
	OnReaped func(source string, r Reaped)
}

// BackoffConfig is the rule that slows the sweeper down when foreground
// latency rises; doc.go states the rule in full. A zero field means its
// default.
type BackoffConfig struct {
	// Window is the least span of one foreground-latency window. Default
	// 500ms.
	Window time.Duration
	// MinSamples is the least number of ObserveForeground calls in a window
	// before it is judged; a window with fewer stays open. Default 20.
	MinSamples int
	// Factor: a window is slow when its p99 exceeds Factor × the baseline.
	// Default 1.5.
	Factor float64
	// Floor: a window whose p99 is at or below Floor is never slow, so
	// noise at microsecond latencies does not trigger back-off. Default 1ms.
	Floor time.Duration
	// Pause is the pause before each batch at level 1; it doubles with each
	// further level. Default 10ms.
	Pause time.Duration
	// MaxLevel is the highest back-off level (batch size shifted right by
	// the level), 1..20. Default 6.
	MaxLevel int
	// Disabled turns the back-off off: ObserveForeground is still cheap but
	// its samples are ignored.
	Disabled bool
}

// DefaultBackoff returns the default back-off rule.
func DefaultBackoff() BackoffConfig {
	return BackoffConfig{
		Window:     500 * time.Millisecond,
		MinSamples: 20,
		Factor:     1.5,
		Floor:      time.Millisecond,
		Pause:      10 * time.Millisecond,
		MaxLevel:   6,
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
	if b.Pause == 0 {
		b.Pause = d.Pause
	}
	if b.MaxLevel == 0 {
		b.MaxLevel = d.MaxLevel
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
	case b.Pause < 0:
		return fmt.Errorf("%w: Backoff.Pause %v is negative", ErrInvalidConfig, b.Pause)
	}
	return nil
}
