package server

import (
	"context"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/mayfly/mayfly/internal/expiry"
)

// expiryCollector exports the expiry engine's Stats to Prometheus at scrape
// time: deletions and lag per source (and per kind, which outlives dropped
// sources), the backlog of due-but-present items, passes and the deletion
// rate.
type expiryCollector struct {
	engine *expiry.Engine

	passes, subPasses, timeCap, reapSeconds *prometheus.Desc
	rate, backoffLevel                      *prometheus.Desc
	prepares, prepareCPU, idleStarved       *prometheus.Desc
	idleBusy                                *prometheus.Desc
	kindDeleted, kindLag                    *prometheus.Desc
	sourceDeleted, sourceLag, sourceBacklog *prometheus.Desc
	sourceNextDue                           *prometheus.Desc
}

func newExpiryCollector(e *expiry.Engine) *expiryCollector {
	d := func(name, help string, labels ...string) *prometheus.Desc {
		return prometheus.NewDesc("mayfly_expiry_"+name, help, labels, nil)
	}
	return &expiryCollector{
		engine:        e,
		passes:        d("passes_total", "Completed sweeper passes (MongoDB metrics.ttl.passes)."),
		subPasses:     d("sub_passes_total", "Sweeper sub-passes (MongoDB metrics.ttl.subPasses)."),
		timeCap:       d("time_cap_reached_total", "Visits that ended with due items left because the per-visit budget ran out."),
		reapSeconds:   d("reap_seconds_total", "Time spent deleting expired items."),
		rate:          d("deletion_rate", "Measured deletion rate in items per second."),
		backoffLevel:  d("backoff_level", "Foreground-latency back-off level (0 is full speed)."),
		prepares:      d("prepares_total", "Batch preparations, by the thread's priority: idle (--background-priority=low) or normal.", "priority"),
		prepareCPU:    d("idle_prepare_cpu_seconds_total", "CPU time the idle-priority preparations got."),
		idleStarved:   d("idle_starved_total", "Idle-priority preparations that got less than a quarter of their time as CPU, each moving preparation to normal priority for a second."),
		idleBusy:      d("idle_busy_total", "Preparations run at normal priority because the foreground left less than a quarter of the CPUs."),
		kindDeleted:   d("deleted_total", "Items deleted by expiry, by kind of source.", "kind"),
		kindLag:       d("lag_seconds", "Delay from an item's due time to its deletion, by kind of source.", "kind"),
		sourceDeleted: d("source_deleted_total", "Items deleted by expiry, by source.", "source", "kind"),
		sourceLag:     d("source_lag_seconds", "Delay from an item's due time to its deletion, by source.", "source", "kind"),
		sourceBacklog: d("source_backlog", "Items due but not yet deleted, by source.", "source", "kind"),
		sourceNextDue: d("source_next_due_timestamp_seconds", "Due time of the earliest item of a source.", "source", "kind"),
	}
}

// Describe implements prometheus.Collector.
func (c *expiryCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.passes, c.subPasses, c.timeCap, c.reapSeconds, c.rate,
		c.backoffLevel, c.prepares, c.prepareCPU, c.idleStarved, c.idleBusy, c.kindDeleted, c.kindLag, c.sourceDeleted, c.sourceLag, c.sourceBacklog, c.sourceNextDue} {
		ch <- d
	}
}

// Collect implements prometheus.Collector.
func (c *expiryCollector) Collect(ch chan<- prometheus.Metric) {
	// The backlog gauges count what is due whether or not the sweeper runs.
	ctx, cancel := context.WithTimeout(context.Background(), backlogCountTimeout)
	c.engine.RefreshBacklogs(ctx)
	cancel()
	st := c.engine.Stats()
	counter := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, v, labels...)
	}
	gauge := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
	}
	counter(c.passes, float64(st.Passes))
	counter(c.subPasses, float64(st.SubPasses))
	counter(c.timeCap, float64(st.TimeCapReached))
	counter(c.reapSeconds, st.ReapTime.Seconds())
	gauge(c.rate, st.Rate)
	gauge(c.backoffLevel, float64(st.Backoff.Level))
	counter(c.prepares, float64(st.Prepare.Idle), "idle")
	counter(c.prepares, float64(st.Prepare.Normal), "normal")
	counter(c.prepareCPU, st.Prepare.IdleCPU.Seconds())
	counter(c.idleStarved, float64(st.Prepare.Starved))
	counter(c.idleBusy, float64(st.Prepare.Busy))
	for _, k := range st.Kinds {
		counter(c.kindDeleted, float64(k.DeletedItems), string(k.Kind))
		ch <- lagHistogram(c.kindLag, k.Lag, string(k.Kind))
	}
	for _, s := range st.Sources {
		counter(c.sourceDeleted, float64(s.DeletedItems), s.Name, string(s.Kind))
		ch <- lagHistogram(c.sourceLag, s.Lag, s.Name, string(s.Kind))
		if s.BacklogKnown {
			gauge(c.sourceBacklog, float64(s.Backlog), s.Name, string(s.Kind))
		}
		if s.HasNext {
			gauge(c.sourceNextDue, float64(s.NextDue.UnixMilli())/1000, s.Name, string(s.Kind))
		}
	}
}

// lagHistogram turns the engine's per-bucket counts into a cumulative
// Prometheus histogram in seconds.
func lagHistogram(d *prometheus.Desc, h expiry.Histogram, labels ...string) prometheus.Metric {
	buckets := make(map[float64]uint64, len(h.Bounds))
	var cum uint64
	for i, b := range h.Bounds {
		if i < len(h.Counts) {
			cum += h.Counts[i]
		}
		buckets[b.Seconds()] = cum
	}
	return prometheus.MustNewConstHistogram(d, h.Count, h.Sum.Seconds(), buckets, labels...)
}
