package bench

import (
	"errors"
	"fmt"
	"slices"
	"time"
)

// Options configure a bench run. DefaultOptions gives the sizes.
type Options struct {
	// Workloads to run, in order (see WorkloadNames); empty runs all.
	Workloads []string `json:"workloads"`
	// Targets are the servers to drive.
	Targets []Target `json:"targets"`
	// Baseline is the label whose figures are divided by each peer's.
	Baseline string `json:"baseline"`
	// Runs is how many times each workload runs on each target; reports
	// give the median.
	Runs int `json:"runs"`

	// Clients is the number of concurrent connections of kv and doc.
	Clients int `json:"clients"`
	// Duration is how long each kv and doc phase runs.
	Duration time.Duration `json:"duration"`
	// Pipeline is the depth of kv's pipelined phases (0 or 1: none).
	Pipeline int `json:"pipeline"`
	// Keys is the key (and document) space of kv and doc, and the number
	// of keys scale loads (every second one with a TTL).
	Keys int `json:"keys"`
	// ValueSize is the size in bytes of every value written.
	ValueSize int `json:"value_size"`
	// Client is the client kv and doc measure through: ClientLean (the
	// default) or ClientDriver. The expiry workloads always use the drivers.
	Client ClientKind `json:"client"`
	// DB is the RESP logical database used (and flushed).
	DB int `json:"db"`
	// Database is the MongoDB database used (and dropped).
	Database string `json:"database"`

	// StormItems is how many items fall due at the same instant in storm.
	StormItems int `json:"storm_items"`
	// SparseDue items fall due at one instant among SparseHidden items
	// with long TTLs in sparse.
	SparseDue    int `json:"sparse_due"`
	SparseHidden int `json:"sparse_hidden"`
	// SteadyRate items per second are written with TTL SteadyTTL for
	// SteadyFor in steady.
	SteadyRate int           `json:"steady_rate"`
	SteadyTTL  time.Duration `json:"steady_ttl"`
	SteadyFor  time.Duration `json:"steady_for"`
	// ScaleDue of scale's Keys keys fall due at one instant.
	ScaleDue int `json:"scale_due"`
	// ScaleKeep leaves scale's keys (and docscale's documents) loaded when
	// it ends, so that the server's start-up with them can be timed.
	ScaleKeep bool `json:"scale_keep"`
	// ScaleDocs documents are loaded by docscale, which then inserts
	// ScaleInsertRate more per second while it reads.
	ScaleDocs       int `json:"scale_docs"`
	ScaleInsertRate int `json:"scale_insert_rate"`
	// PurgeItems carry the marker bytes in purge.
	PurgeItems int `json:"purge_items"`
	// PurgeScan is the period of purge's scans of the data directory.
	PurgeScan time.Duration `json:"purge_scan"`

	// LiveItems are items without expiry that foreground reads hit during
	// the expiry workloads.
	LiveItems int `json:"live_items"`
	// ReadRate is the rate (per second, over Readers connections) of the
	// foreground reads measured during the expiry workloads.
	ReadRate int `json:"read_rate"`
	Readers  int `json:"readers"`
	// Timeout bounds each wait for deletions (storm, sparse, steady's
	// drain) and purge's wait for the bytes to leave the disk.
	Timeout time.Duration `json:"timeout"`
	// Lead is how long before an expiry workload's due instant its load
	// must be done (the window of "before" reads) and how long reads go on
	// after the last deletion (the "after" window).
	Lead time.Duration `json:"lead"`
	// Poll is the period of reading the servers' deletion counters.
	Poll time.Duration `json:"poll"`
	// Window is the width of the windows of latency-over-time charts.
	Window time.Duration `json:"window"`

	// ChartDir receives the PNG charts; empty writes none.
	ChartDir string `json:"chart_dir,omitempty"`
	// Progress shows progress; nil shows none.
	Progress *Progress `json:"-"`
}

// DefaultOptions returns the sizes the issue asks for: 50 clients, -P 16,
// a storm of 1,000,000 keys, 10,000 sparse keys among 1,000,000, steady
// expiry at 50,000 per second.
func DefaultOptions() Options {
	return Options{
		Baseline:        "mayfly",
		Runs:            1,
		Clients:         50,
		Duration:        3 * time.Second,
		Pipeline:        16,
		Client:          ClientLean,
		Keys:            100_000,
		ValueSize:       32,
		DB:              0,
		Database:        "mayfly_bench",
		StormItems:      1_000_000,
		SparseDue:       10_000,
		SparseHidden:    1_000_000,
		SteadyRate:      50_000,
		SteadyTTL:       2 * time.Second,
		SteadyFor:       20 * time.Second,
		ScaleDue:        10_000,
		ScaleDocs:       10_000_000,
		ScaleInsertRate: 10_000,
		PurgeItems:      100_000,
		PurgeScan:       time.Second,
		LiveItems:       10_000,
		ReadRate:        2_000,
		Readers:         4,
		Timeout:         60 * time.Second,
		Lead:            2 * time.Second,
		Poll:            20 * time.Millisecond,
		Window:          100 * time.Millisecond,
	}
}

// ClientKind names the client the throughput workloads (kv, doc) drive
// the servers through.
type ClientKind string

// The clients of kv and doc.
const (
	// ClientLean is bench's own minimal client, one connection per worker
	// speaking RESP2 or OP_MSG directly, as redis-benchmark does: it costs
	// the machine a small fraction of what the server does, so the figures
	// are the server's. It is the default.
	ClientLean ClientKind = "lean"
	// ClientDriver is go-redis v9 and the MongoDB Go driver v2, what
	// applications use; on a small machine they spend about as much CPU
	// as the server, and the figures are then theirs.
	ClientDriver ClientKind = "driver"
)

// ErrBadOptions reports options that cannot run.
var ErrBadOptions = errors.New("bench: bad options")

// Validate checks the options and fills an empty workload list with the
// workloads that run by default.
func (o *Options) Validate() error {
	if len(o.Workloads) == 0 {
		o.Workloads = defaultWorkloads()
	}
	for _, w := range o.Workloads {
		if !slices.Contains(WorkloadNames(), w) {
			return fmt.Errorf("%w: unknown workload %q (have %v)", ErrBadOptions, w, WorkloadNames())
		}
	}
	if len(o.Targets) == 0 {
		return fmt.Errorf("%w: no target (give --resp-addr or --mongo-uri)", ErrBadOptions)
	}
	positive := map[string]int{
		"runs": o.Runs, "clients": o.Clients, "keys": o.Keys, "value size": o.ValueSize,
		"storm items": o.StormItems, "sparse due": o.SparseDue, "steady rate": o.SteadyRate,
		"purge items": o.PurgeItems, "live items": o.LiveItems, "read rate": o.ReadRate, "readers": o.Readers,
		"scale docs": o.ScaleDocs, "scale insert rate": o.ScaleInsertRate,
	}
	for name, v := range positive {
		if v <= 0 {
			return fmt.Errorf("%w: %s must be positive, not %d", ErrBadOptions, name, v)
		}
	}
	durations := map[string]time.Duration{
		"duration": o.Duration, "steady ttl": o.SteadyTTL, "steady for": o.SteadyFor, "timeout": o.Timeout,
		"poll": o.Poll, "lead": o.Lead, "window": o.Window, "purge scan": o.PurgeScan,
	}
	for name, v := range durations {
		if v <= 0 {
			return fmt.Errorf("%w: %s must be positive, not %s", ErrBadOptions, name, v)
		}
	}
	if o.SparseHidden < 0 || o.ScaleDue < 0 || o.Pipeline < 0 || o.DB < 0 {
		return fmt.Errorf("%w: sparse hidden, scale due, pipeline and db must not be negative", ErrBadOptions)
	}
	if o.Client != ClientLean && o.Client != ClientDriver {
		return fmt.Errorf("%w: client must be %s or %s, not %q", ErrBadOptions, ClientLean, ClientDriver, o.Client)
	}
	if o.Database == "" {
		return fmt.Errorf("%w: empty database name", ErrBadOptions)
	}
	return nil
}
