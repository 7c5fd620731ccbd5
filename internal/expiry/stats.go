package expiry

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Stats is a snapshot of the engine's counters and state. It is a plain
// struct: the server turns it into Prometheus metrics, serverStatus's
// metrics.ttl and Redis's INFO stats. Counters count since New.
type Stats struct {
	// Passes is MongoDB's metrics.ttl.passes: completed passes. A pass cut
	// short because the sweeper stopped or the monitor was disabled is not
	// counted.
	Passes int64
	// AbandonedPasses counts passes cut short because the sweeper stopped
	// or the monitor was disabled.
	AbandonedPasses int64
	// SubPasses is metrics.ttl.subPasses.
	SubPasses int64
	// DeletedItems counts every item deleted (documents, keys, fields). The
	// per-kind counts give MongoDB's metrics.ttl.deletedDocuments
	// (KindTTLIndex + KindPolicy), Redis's expired_keys (KindRedisKeys) and
	// expired_subkeys (KindRedisField).
	DeletedItems int64
	// DeletedKeys is metrics.ttl.deletedKeys summed over all sources.
	DeletedKeys int64
	// TimeCapReached is Redis's expired_time_cap_reached_count: visits that
	// ended with due items left because the per-visit budget
	// (ttlIndexDeleteTargetDocs or ttlIndexDeleteTargetTimeMS) ran out.
	TimeCapReached int64
	// SubPassTargetReached counts sub-passes cut short by
	// ttlMonitorSubPassTargetSecs.
	SubPassTargetReached int64
	// ReapTime is the time spent inside ReapBatch calls, Redis's
	// expire_cycle_cpu_milliseconds.
	ReapTime time.Duration
	// Reaps is the number of ReapBatch calls (storage batches).
	Reaps int64
	// Errors counts failed NextDue, ReapBatch and CountDue calls.
	Errors int64
	// Stalls counts sources held back for claiming due items they did not
	// reap.
	Stalls int64
	// RateLimitWait is the time spent waiting for ttlMaxDeletesPerSecond.
	RateLimitWait time.Duration
	// Rate is the measured deletion rate in items per second (see rate.go);
	// 0 until measured.
	Rate float64
	// Backoff is the foreground-latency back-off state.
	Backoff BackoffStats
	// Prepare counts where Batch.Prepare ran (Config.Idle).
	Prepare PrepareStats
	// Lag is the lag histogram over all sources.
	Lag Histogram
	// Params are the current runtime parameters.
	Params Params
	// Running is true while Run is active; InPass while a pass runs.
	Running, InPass bool
	// NextWake is when the sweeper will next run a pass (zero while
	// stopped).
	NextWake time.Time
	// LastPassStart is when the last pass began (its "now"), and
	// LastPassDuration how long it took.
	LastPassStart    time.Time
	LastPassDuration time.Duration
	// Sources holds one entry per registered source, sorted by name.
	Sources []SourceStats
	// Kinds holds one entry per kind that ever had a deletion, sorted.
	Kinds []KindStats
}

// BackoffStats describes the foreground-latency back-off.
type BackoffStats struct {
	// Level is the current level: the sweeper works Duty = 2^-Level of the
	// time, in batches of BatchSize·Duty items; 0 is full speed.
	Level float64
	// Duty is the fraction of time the sweeper works (1 at full speed).
	Duty float64
	// Baseline is the foreground p90 the rule compares with; Recent is the
	// p90 of the last judged window.
	Baseline, Recent time.Duration
	// Windows counts judged windows, SlowWindows those found slow.
	Windows, SlowWindows int64
	// Pauses and PauseTime count the pauses taken.
	Pauses    int64
	PauseTime time.Duration
}

// PrepareStats count the batch preparations (Batch.Prepare) and where
// they ran: on Config.Idle's thread at idle priority, or on the sweeper's
// own thread (no Idle, or the idle thread found starved).
type PrepareStats struct {
	// Idle counts preparations on the idle thread; IdleCPU and IdleWall
	// are the CPU time they got and the wall time they took.
	Idle              int64
	IdleCPU, IdleWall time.Duration
	// Normal counts preparations on the sweeper's thread; Busy those of
	// them that ran there because the foreground left less than a quarter
	// of the CPUs (Idle.Spare).
	Normal, Busy int64
	// Starved counts idle preparations that found the idle thread starved
	// (idle.go), each of which moved preparation to the sweeper's thread for
	// a second.
	Starved int64
}

// SourceStats are one source's counters and gauges.
type SourceStats struct {
	Name string
	Kind Kind
	// DeletedItems and DeletedKeys as in Stats.
	DeletedItems, DeletedKeys int64
	// Reaps, Errors and TimeCapReached as in Stats.
	Reaps, Errors, TimeCapReached int64
	// BatchedReaps counts the ReapBatch calls made while
	// ttlMonitorBatchDeletes was on (MongoDB's batched deletes; with it
	// off, deletes are not batched).
	BatchedReaps int64
	// ReapTime is the time spent in this source's ReapBatch calls.
	ReapTime time.Duration
	// NextDue is the due time of its earliest item as last asked; HasNext
	// is false when it holds nothing that expires or was not asked yet.
	NextDue time.Time
	HasNext bool
	// Backlog is the number of due-but-present items at BacklogAt, with
	// their due-time range; BacklogKnown is false when it could not be
	// counted (a source that is not a Counter, during a long pass).
	Backlog                                 int64
	BacklogKnown                            bool
	BacklogAt, BacklogOldest, BacklogNewest time.Time
	// Lag is the source's lag histogram.
	Lag Histogram
}

// KindStats are the counters of one kind of source, including sources
// since unregistered.
type KindStats struct {
	Kind                      Kind
	DeletedItems, DeletedKeys int64
	// BatchedItems counts the items deleted while ttlMonitorBatchDeletes
	// was on.
	BatchedItems int64
	Lag          Histogram
}

// Stats returns a snapshot. It takes the engine's lock briefly and calls no
// source.
func (e *Engine) Stats() Stats {
	e.mu.Lock()
	defer e.mu.Unlock()
	s := Stats{
		Passes:               e.tot.passes,
		AbandonedPasses:      e.pub.abandoned,
		SubPasses:            e.tot.subPasses,
		DeletedItems:         e.tot.items,
		DeletedKeys:          e.tot.keys,
		TimeCapReached:       e.tot.capHits,
		SubPassTargetReached: e.tot.subPassCaps,
		ReapTime:             e.tot.reapTime,
		Reaps:                e.tot.reaps,
		Errors:               e.tot.errors,
		Stalls:               e.tot.stalls,
		RateLimitWait:        e.tot.rateWait,
		Rate:                 e.pub.rate,
		Backoff: BackoffStats{
			Level:       e.pub.level,
			Duty:        e.pub.duty,
			Baseline:    e.pub.baseline,
			Recent:      e.pub.recent,
			Windows:     e.pub.windows,
			SlowWindows: e.pub.slowWindows,
			Pauses:      e.tot.pauses,
			PauseTime:   e.tot.pauseTime,
		},
		Prepare: PrepareStats{
			Idle:     e.tot.idlePrepares,
			IdleCPU:  e.tot.idleCPU,
			IdleWall: e.tot.idleWall,
			Normal:   e.tot.normalPrepares,
			Busy:     e.tot.busyPrepares,
			Starved:  e.tot.idleStarved,
		},
		Lag:              e.tot.lag.snapshot(),
		Params:           *e.params.Load(),
		Running:          e.running,
		InPass:           e.pub.inPass,
		LastPassStart:    e.pub.lastPassStart,
		LastPassDuration: e.pub.lastPassDuration,
	}
	if e.running {
		s.NextWake = e.pub.nextWake
	}
	s.Sources = make([]SourceStats, 0, len(e.order))
	for _, st := range e.order {
		ss := SourceStats{
			Name:           st.name,
			Kind:           st.kind,
			DeletedItems:   st.c.items,
			DeletedKeys:    st.c.keys,
			Reaps:          st.c.reaps,
			BatchedReaps:   st.c.batchedReaps,
			Errors:         st.c.errors,
			TimeCapReached: st.c.capHits,
			ReapTime:       st.c.reapTime,
			HasNext:        st.known && st.hasNext,
			Backlog:        st.c.backlog,
			BacklogKnown:   st.c.backlogKnown,
			BacklogAt:      st.c.backlogAt,
			BacklogOldest:  st.c.oldest,
			BacklogNewest:  st.c.newest,
			Lag:            st.c.lag.snapshot(),
		}
		if ss.HasNext {
			ss.NextDue = time.UnixMilli(st.nextDue)
		}
		s.Sources = append(s.Sources, ss)
	}
	sortBy(s.Sources, func(x SourceStats) string { return x.Name })
	for k, c := range e.kinds {
		s.Kinds = append(s.Kinds, KindStats{Kind: k, DeletedItems: c.items, DeletedKeys: c.keys, BatchedItems: c.batchedItems, Lag: c.lag.snapshot()})
	}
	sortBy(s.Kinds, func(x KindStats) Kind { return x.Kind })
	return s
}

// Source returns the stats of the named source.
func (s Stats) Source(name string) (SourceStats, bool) {
	i, ok := slices.BinarySearchFunc(s.Sources, name, func(x SourceStats, n string) int { return cmp.Compare(x.Name, n) })
	if !ok {
		return SourceStats{}, false
	}
	return s.Sources[i], true
}

// Kind returns the counters of kind k (zero when nothing of that kind was
// ever deleted).
func (s Stats) Kind(k Kind) KindStats {
	for _, x := range s.Kinds {
		if x.Kind == k {
			return x
		}
	}
	return KindStats{Kind: k, Lag: Histogram{Bounds: lagBounds, Counts: make([]uint64, len(lagBounds)+1)}}
}

// String renders the main counters on one line, for logs and tests.
func (s Stats) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "passes=%d subPasses=%d deleted=%d keys=%d capHits=%d reaps=%d errors=%d",
		s.Passes, s.SubPasses, s.DeletedItems, s.DeletedKeys, s.TimeCapReached, s.Reaps, s.Errors)
	if s.Lag.Count > 0 {
		fmt.Fprintf(&b, " lag.p50=%v lag.p99=%v lag.max=%v", s.Lag.P50(), s.Lag.P99(), s.Lag.Max)
	}
	return b.String()
}

func sortBy[T any, K cmp.Ordered](s []T, key func(T) K) {
	slices.SortFunc(s, func(a, b T) int { return cmp.Compare(key(a), key(b)) })
}
