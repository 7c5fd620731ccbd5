package storage

import (
	"log/slog"
	"sync"
	"sync/atomic"

	"github.com/cockroachdb/pebble/v2"

	"github.com/mayfly/mayfly/internal/lowprio"
)

// Compactions at low priority (Options.LowPriorityCompactions).
//
// A compaction rewrites what the writes and deletions before it left
// behind; after a storm of expirations that is a large share of the
// server's CPU. Pebble runs each compaction on a goroutine of its own that ends
// with it, and calls the CompactionBegin listener on that goroutine. The
// listener locks the goroutine to its thread and lowers the thread to nice
// 19 (lowprio.LowerThread), so a foreground request that wakes up takes
// the CPU from the compaction at once; when the compaction's goroutine
// ends, the runtime ends the thread. Nice 19 rather than the idle class,
// because the priority cannot be raised back without privilege: a nice-19
// compaction still gets a share of busy CPUs, so writes never wait on a
// compaction that cannot run. Flushes keep normal priority: a memtable
// waiting for its flush stops writes at once.

// compactionPriority lowers the threads of compactions and counts them.
type compactionPriority struct {
	lowered atomic.Int64
	failed  sync.Once
	logger  *slog.Logger
}

// begin is the CompactionBegin listener.
func (c *compactionPriority) begin(pebble.CompactionInfo) {
	if err := lowprio.LowerThread(); err != nil {
		c.failed.Do(func() { c.logger.Warn("compactions keep normal priority", "err", err) })
		return
	}
	c.lowered.Add(1)
}
