package storage

import (
	"fmt"
	"log/slog"
	"time"
)

// Durability says when a committed write is safe from a power failure.
type Durability int

const (
	// DurabilityGroup acknowledges a write once it is appended to the
	// write-ahead log's buffer and fsyncs the log at least every
	// GroupSyncInterval. A crash of the process or a power failure can lose
	// the writes of roughly the last interval. This is the default, like
	// MongoDB's journal commit interval and Redis's appendfsync everysec.
	DurabilityGroup Durability = iota
	// DurabilitySync fsyncs the write-ahead log before a write is
	// acknowledged: an acknowledged write survives a power failure.
	DurabilitySync
)

// String returns the flag spelling of d.
func (d Durability) String() string {
	switch d {
	case DurabilitySync:
		return "sync"
	case DurabilityGroup:
		return "group"
	default:
		return fmt.Sprintf("Durability(%d)", int(d))
	}
}

// ParseDurability parses the flag spelling of a durability mode.
func ParseDurability(s string) (Durability, error) {
	switch s {
	case "sync":
		return DurabilitySync, nil
	case "group", "":
		return DurabilityGroup, nil
	default:
		return 0, fmt.Errorf("storage: unknown durability %q (want sync or group)", s)
	}
}

// Options configure a Store.
type Options struct {
	// Dir is the data directory. It is created if missing.
	Dir string
	// InMemory keeps everything in memory (tests); Dir is then only a name.
	InMemory bool
	// Durability is the durability mode; the zero value is DurabilityGroup.
	Durability Durability
	// GroupSyncInterval is the longest time between log fsyncs under
	// DurabilityGroup; zero means 100 ms.
	GroupSyncInterval time.Duration
	// CacheSize is the block cache size in bytes; zero means 64 MiB.
	CacheSize int64
	// Logger receives Pebble's informational and error messages; nil means
	// slog.Default().
	Logger *slog.Logger
	// PurgeAfter bounds how long the bytes of a deleted item may stay in any
	// file of the data directory (purge.go); zero means 10 minutes.
	PurgeAfter time.Duration
	// Now is the clock of the purge bound; nil means time.Now.
	Now func() time.Time
	// After returns a channel that receives once d has passed, as
	// time.After does; nil means time.After. The purge loop waits with it
	// between its checks and between the compactions of a cycle, so tests
	// can drive the loop with a fake clock.
	After func(d time.Duration) <-chan time.Time
	// LowPriorityCompactions runs compactions on threads at nice 19
	// (compaction_priority.go), so foreground requests preempt them.
	LowPriorityCompactions bool
}

// EnsureDefaults fills in the zero fields with their defaults.
func (o *Options) EnsureDefaults() {
	if o.GroupSyncInterval == 0 {
		o.GroupSyncInterval = 100 * time.Millisecond
	}
	if o.CacheSize == 0 {
		o.CacheSize = 64 << 20
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.PurgeAfter == 0 {
		o.PurgeAfter = DefaultPurgeAfter
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.After == nil {
		o.After = time.After
	}
}

// DefaultPurgeAfter is the default purge bound.
const DefaultPurgeAfter = 10 * time.Minute

// Validate reports the first invalid option.
func (o *Options) Validate() error {
	if o.Dir == "" && !o.InMemory {
		return fmt.Errorf("storage: no data directory given")
	}
	if o.Durability != DurabilityGroup && o.Durability != DurabilitySync {
		return fmt.Errorf("storage: unknown durability %d", o.Durability)
	}
	if o.GroupSyncInterval < 0 {
		return fmt.Errorf("storage: negative group sync interval %s", o.GroupSyncInterval)
	}
	if o.PurgeAfter < 0 {
		return fmt.Errorf("storage: negative purge bound %s", o.PurgeAfter)
	}
	return nil
}
