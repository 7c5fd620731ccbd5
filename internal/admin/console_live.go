package admin

import (
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/mayfly/mayfly/internal/expiry"
)

// liveSamples is how many one-second samples the console keeps: 15
// minutes.
const liveSamples = 15 * 60

// LiveSample is one second of the live deletion chart: what changed since
// the previous sample.
type LiveSample struct {
	// T is when it was taken (Unix ms).
	T int64 `json:"t"`
	// DeletedPerSecond is the deletion rate since the previous sample.
	DeletedPerSecond float64 `json:"deletedPerSecond"`
	// LagP50Seconds and LagP99Seconds are the lag quantiles of the
	// deletions since the previous sample (0 when there were none).
	LagP50Seconds float64 `json:"lagP50Seconds"`
	LagP99Seconds float64 `json:"lagP99Seconds"`
	// Backlog is the sum of the sources' last counted backlogs, and
	// Backlogs each source's.
	Backlog  int64            `json:"backlog"`
	Backlogs map[string]int64 `json:"backlogs"`
	// Level is the storm controller's back-off level (0 is full speed)
	// and RateLimit ttlMaxDeletesPerSecond (0: none).
	Level     float64 `json:"level"`
	RateLimit int64   `json:"rateLimit"`
}

// Live is the reply of /v1/console/live: the samples taken after Since,
// oldest first.
type Live struct {
	Since   int64        `json:"since"`
	Samples []LiveSample `json:"samples"`
}

// liveRing keeps the last samples and the stats the next one is taken
// against.
type liveRing struct {
	mu      sync.Mutex
	samples []LiveSample // ring of cap n
	next    int          // where the next sample goes once full
	prev    expiry.Stats
	prevAt  time.Time
	hasPrev bool
}

func newLiveRing(n int) *liveRing { return &liveRing{samples: make([]LiveSample, 0, n)} }

// add records a sample of st taken at now against the previous one; the
// first call only sets the reference.
func (l *liveRing) add(now time.Time, st expiry.Stats) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.hasPrev || !now.After(l.prevAt) {
		l.prev, l.prevAt, l.hasPrev = st, now, true
		return
	}
	s := LiveSample{T: now.UnixMilli(), Level: st.Backoff.Level, RateLimit: st.Params.MaxDeletesPerSecond, Backlogs: map[string]int64{}}
	secs := now.Sub(l.prevAt).Seconds()
	s.DeletedPerSecond = float64(st.DeletedItems-l.prev.DeletedItems) / secs
	if d := lagSince(st.Lag, l.prev.Lag); d.Count > 0 {
		s.LagP50Seconds, s.LagP99Seconds = d.P50().Seconds(), d.P99().Seconds()
	}
	for _, src := range st.Sources {
		if src.BacklogKnown {
			s.Backlogs[src.Name] = src.Backlog
			s.Backlog += src.Backlog
		}
	}
	if len(l.samples) < cap(l.samples) {
		l.samples = append(l.samples, s)
	} else {
		l.samples[l.next] = s
		l.next = (l.next + 1) % len(l.samples)
	}
	l.prev, l.prevAt = st, now
}

// since returns the samples taken after t (Unix ms), oldest first.
func (l *liveRing) since(t int64) []LiveSample {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := []LiveSample{}
	for i := range l.samples {
		s := l.samples[(l.next+i)%len(l.samples)]
		if s.T > t {
			out = append(out, s)
		}
	}
	return out
}

// lagSince is the histogram of the lags recorded between prev and cur;
// its Max is cur's, the best bound known.
func lagSince(cur, prev expiry.Histogram) expiry.Histogram {
	d := expiry.Histogram{Bounds: cur.Bounds, Counts: append([]uint64(nil), cur.Counts...), Max: cur.Max}
	for i := range min(len(d.Counts), len(prev.Counts)) {
		d.Counts[i] -= prev.Counts[i]
	}
	d.Count = cur.Count - prev.Count
	d.Sum = cur.Sum - prev.Sum
	return d
}

func (c *Console) liveSeries(w http.ResponseWriter, r *http.Request) {
	var since int64
	if v := r.URL.Query().Get("since"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			writeError(w, badRequest("since must be Unix milliseconds, not %q", v))
			return
		}
		since = n
	}
	writeJSON(w, http.StatusOK, Live{Since: since, Samples: c.live.since(since)})
}
