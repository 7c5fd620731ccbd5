package server

import (
	"strings"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/mayfly/mayfly/internal/storage"
)

// storageCollector exports storage.Metrics to Prometheus at scrape time.
type storageCollector struct {
	store *storage.Store
	descs map[string]*prometheus.Desc
}

var storageGauges = []struct {
	name, help string
	value      func(m storage.Metrics) float64
}{
	{"disk_usage_bytes", "Bytes of every file in the data directory.", func(m storage.Metrics) float64 { return float64(m.DiskSpaceUsage) }},
	{"memtable_bytes", "Bytes held by memtables.", func(m storage.Metrics) float64 { return float64(m.MemTableSize) }},
	{"wal_files", "Live write-ahead log files.", func(m storage.Metrics) float64 { return float64(m.WALFiles) }},
	{"wal_physical_bytes", "Bytes on disk of the write-ahead log.", func(m storage.Metrics) float64 { return float64(m.WALPhysicalSize) }},
	{"sstables", "Sstables in all levels.", func(m storage.Metrics) float64 { return float64(m.TableCount) }},
	{"sstable_bytes", "Bytes of sstables in all levels.", func(m storage.Metrics) float64 { return float64(m.TableSize) }},
	{"read_amplification", "Sstables a read may consult.", func(m storage.Metrics) float64 { return float64(m.ReadAmp) }},
	{"flushes_total", "Memtable flushes since start.", func(m storage.Metrics) float64 { return float64(m.Flushes) }},
	{"compactions_total", "Compactions since start.", func(m storage.Metrics) float64 { return float64(m.Compactions) }},
	{"compactions_lowered_total", "Compactions run at low CPU priority (--background-priority=low).", func(m storage.Metrics) float64 { return float64(m.LoweredCompactions) }},
	{"compaction_debt_bytes", "Estimated bytes to compact.", func(m storage.Metrics) float64 { return float64(m.CompactionDebt) }},
	{"block_cache_hits_total", "Block cache hits.", func(m storage.Metrics) float64 { return float64(m.BlockCacheHits) }},
	{"block_cache_misses_total", "Block cache misses.", func(m storage.Metrics) float64 { return float64(m.BlockCacheMisses) }},
	{"purge_oldest_pending_seconds", "Age of the oldest deletion whose bytes may still be in a file of the data directory (0 when none).", func(m storage.Metrics) float64 { return m.Purge.OldestPending.Seconds() }},
	{"purge_bound_seconds", "The purge bound (--purge-after).", func(m storage.Metrics) float64 { return m.Purge.After.Seconds() }},
	{"purge_pending_spans", "Key spans with deleted data waiting for a purge cycle.", func(m storage.Metrics) float64 { return float64(m.Purge.PendingSpans) }},
	{"purge_cycles_total", "Purge cycles (flush and compaction of deleted spans) completed.", func(m storage.Metrics) float64 { return float64(m.Purge.Cycles) }},
	{"purge_failures_total", "Purge cycles that failed and were retried.", func(m storage.Metrics) float64 { return float64(m.Purge.Failures) }},
}

func newStorageCollector(s *storage.Store) *storageCollector {
	c := &storageCollector{store: s, descs: map[string]*prometheus.Desc{}}
	for _, g := range storageGauges {
		c.descs[g.name] = prometheus.NewDesc("mayfly_storage_"+g.name, g.help, nil, nil)
	}
	return c
}

// Describe implements prometheus.Collector.
func (c *storageCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range c.descs {
		ch <- d
	}
}

// Collect implements prometheus.Collector.
func (c *storageCollector) Collect(ch chan<- prometheus.Metric) {
	m := c.store.Metrics()
	for _, g := range storageGauges {
		kind := prometheus.GaugeValue
		if strings.HasSuffix(g.name, "_total") {
			kind = prometheus.CounterValue // counts since start, which only go up
		}
		ch <- prometheus.MustNewConstMetric(c.descs[g.name], kind, g.value(m))
	}
}
