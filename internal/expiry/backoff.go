package expiry

import (
	"math"
	"math/bits"
	"sync/atomic"
	"time"
)

// fgBuckets is the number of buckets of the foreground-latency histogram:
// bucket 0 holds latencies up to 1024ns, then four buckets per doubling up
// to 2^40ns (about 18 minutes); the last bucket also holds anything longer.
const fgBuckets = 1 + 4*30

// fgBucket maps a latency to its bucket.
func fgBucket(d time.Duration) int {
	v := uint64(max(d, 0))
	if v <= 1024 {
		return 0
	}
	v-- // so an exact bucket upper bound falls into that bucket
	b := bits.Len64(v)
	sub := int(v>>(b-3)) & 3
	return min(1+(b-11)*4+sub, fgBuckets-1)
}

// fgUpper is the upper bound of a foreground bucket.
func fgUpper(i int) time.Duration {
	if i == 0 {
		return 1024
	}
	b := (i-1)/4 + 11
	sub := (i - 1) % 4
	lo := uint64(1)<<(b-1) + uint64(sub)<<(b-3)
	return time.Duration(lo + uint64(1)<<(b-3))
}

// foreground holds two cumulative latency histograms written lock-free by
// ObserveForeground: requests that ended during a batch of the sweeper or
// within busyTail after one (busy), and the others (idle). The sweeper
// diffs them against its previous reading to get one window. The tag
// depends on when a request ended, not on whether it overlapped a batch:
// a long request (an INFO walking an index) overlaps some batch almost
// always, and would make the busy requests look slow for what they are,
// not for what the sweeper did.
type foreground struct {
	counts   [2][fgBuckets]atomic.Uint64 // [0] idle, [1] busy
	inBatch  atomic.Bool
	batchEnd atomic.Int64 // Unix ns at which the last batch ended
}

func (f *foreground) observe(now time.Time, d time.Duration) {
	busy := 0
	if f.inBatch.Load() || now.UnixNano()-f.batchEnd.Load() < int64(busyTail) {
		busy = 1
	}
	f.counts[busy][fgBucket(d)].Add(1)
}

// busyTail: a request that ends this soon after a batch may have waited
// for it (for a lock it held, or for a core).
const busyTail = time.Millisecond

// window is one window's counts, idle and busy.
type window [2][fgBuckets]uint64

// backoff is the sweeper's pacing controller (owned by the sweeper
// goroutine). The sweeper works a fraction duty = 2^-level of the time:
// batches shrink to BatchSize·duty items (at least one) and each batch's
// time t is followed by t·(1/duty − 1) of pause, owed as a debt and paid
// once it reaches minPause so timer granularity does not stretch short
// pauses. The rule that moves the level:
//
//   - Before each pass and each batch the sweeper judges a window: the span
//     since the previous judged one, once it is at least Window long and
//     holds MinSamples requests; one open for sparseWindows Windows without
//     them is judged calm.
//   - The baseline is the foreground's p90 without the sweeper: a window
//     with MinSamples idle requests moves it halfway toward their p90, so
//     a heavier workload is not taken for the sweeper's doing; with none
//     yet, the first judged window sets it.
//   - A window with MinSamples busy requests is slow when their p90 >
//     Factor × baseline and > Floor: the level rises by
//     log2(p90 / (Factor × baseline)), at most 1, up to MaxLevel. Any other
//     window is calm: the level falls by Recover, down to 0.
//   - After each batch the level is capped at MaxLevel·(1 − lag/LagBound),
//     lag being how late the batch's earliest item was, so the duty climbs
//     back to full speed as deletions near LagBound behind.
//   - The first batch after a window with foreground requests and no
//     paced deletion starts at StartLevel at least.
//   - A pass's first Burst is not paced: its batches run at full size with
//     no pause whatever the level, and a window in which the sweeper did
//     no paced work (every batch within a burst) is calm. A load the
//     sweeper keeps up with, whose every pass ends within Burst, so runs
//     at full speed; pacing is for the passes that take longer (storms).
//
// The debt and the lag are forgotten when a pass ends. The sweeper does not
// yield between batches (runtime.Gosched): that would hand the source's
// locks to the queued clients first and let the lag grow without bound.
type backoff struct {
	cfg      BackoffConfig
	prev     window
	lastEval time.Time
	baseline time.Duration // 0 until the first judged window
	recent   time.Duration // p90 of the last judged window
	level    float64       // duty = 2^-level before the lag bound; 0 is full speed
	lag      time.Duration // how late the last batch's earliest item was
	windows  int64         // judged windows
	slow     int64         // judged windows found slow

	busy     bool          // the sweeper deleted something past a burst in the current window
	idle     bool          // the last judged window saw no paced deletion
	passAt   time.Time     // when the current pass started
	inBurst  bool          // the next batch is within its pass's first Burst
	watched  bool          // the last judged window had foreground requests
	perItem  time.Duration // time per item of the last batch
	debt     time.Duration // pause owed
	pauseDur time.Duration // length of the last pause taken
}

// Controller constants.
const (
	// baselineIdleAlpha: how far each window's p90 of the requests no
	// batch overlapped moves the baseline.
	baselineIdleAlpha = 0.5
	// sparseWindows: a window open this many Windows without MinSamples
	// requests is judged calm (there is next to nothing to protect) and
	// does not touch the baseline.
	sparseWindows = 4
	// minPause is the shortest pause taken; shorter debts accumulate.
	minPause = time.Millisecond
)

// evaluate judges the window since the last judged one if it is at least
// cfg.Window long and has cfg.MinSamples samples (or is sparseWindows
// Windows long); it reports whether it judged one.
func (b *backoff) evaluate(now time.Time, f *foreground) bool {
	if b.cfg.Disabled {
		return false
	}
	if b.lastEval.IsZero() {
		b.lastEval = now
		b.prev = f.load()
		return false
	}
	span := now.Sub(b.lastEval)
	if span < b.cfg.Window {
		return false
	}
	cur := f.load()
	var w window
	var n [2]uint64
	for k := range cur {
		for i := range cur[k] {
			w[k][i] = cur[k][i] - b.prev[k][i]
			n[k] += w[k][i]
		}
	}
	need := uint64(b.cfg.MinSamples)
	if n[0]+n[1] < need {
		if span < sparseWindows*b.cfg.Window {
			return false
		}
		b.prev, b.lastEval = cur, now
		b.windows++
		b.watched = false
		b.endWindow(0)
		return true
	}
	b.prev, b.lastEval = cur, now
	b.windows++
	b.watched = true
	idle, busy := p90(&w[0], n[0]), p90(&w[1], n[1])
	switch {
	case n[0] >= need:
		// Requests the sweeper did not overlap show the foreground as it
		// is now: the baseline follows them quickly, so a change of
		// workload is not taken for the sweeper's doing.
		if b.baseline == 0 {
			b.baseline = idle
		} else {
			b.baseline += time.Duration(baselineIdleAlpha * float64(idle-b.baseline))
		}
	case b.baseline == 0:
		// None yet: the first window sets the baseline, whatever it is.
		b.baseline = max(idle, busy)
	}
	excess := 0.0 // how many doublings the busy p90 is above the limit
	if n[1] >= need {
		b.recent = busy
		// Only paced work can be paced down: a window whose batches all
		// ran within a burst is calm however slow its requests were.
		if b.busy && busy > b.cfg.Floor && float64(busy) > b.cfg.Factor*float64(b.baseline) {
			excess = math.Log2(float64(busy) / (b.cfg.Factor * float64(b.baseline)))
			b.slow++
		}
	} else {
		b.recent = idle
	}
	b.endWindow(excess)
	return true
}

// load reads both histograms.
func (f *foreground) load() window {
	var w window
	for k := range f.counts {
		for i := range f.counts[k] {
			w[k][i] = f.counts[k][i].Load()
		}
	}
	return w
}

// p90 returns the p90 of a window's histogram holding n requests: the upper
// bound of the bucket holding rank ceil(0.9 n); 0 for none. Not the p99: on
// a busy machine a window's p99 is a handful of requests that other
// processes delayed, and swings from one window to the next whatever the
// sweeper does, while the sweeper's own effect (requests waiting for a
// core or a lock) lifts the body of the distribution.
func p90(h *[fgBuckets]uint64, n uint64) time.Duration {
	if n == 0 {
		return 0
	}
	rank := (n*9 + 9) / 10
	var cum uint64
	for i := range h {
		cum += h[i]
		if cum >= rank {
			return fgUpper(i)
		}
	}
	return fgUpper(fgBuckets - 1)
}

// endWindow moves the level after a judged window: up by the window's
// excess (in doublings over the limit, at most one: the duty at most
// halves) when it was slow, down by cfg.Recover otherwise.
func (b *backoff) endWindow(excess float64) {
	if excess > 0 {
		b.level = min(b.level+min(excess, 1), float64(b.cfg.MaxLevel))
	} else {
		b.level = max(b.level-b.cfg.Recover, 0)
	}
	b.idle = !b.busy
	b.busy = false
}

// passStarted is called when a pass starts at now: its first Burst is
// not paced.
func (b *backoff) passStarted(now time.Time) { b.passAt = now }

// started is called before a batch that starts at now: it says whether
// the batch is within its pass's first Burst, and the first batch past a
// burst after an idle window starts no faster than StartLevel, so a storm
// does not hit the foreground at full speed for a whole window before the
// first verdict.
func (b *backoff) started(now time.Time) {
	b.inBurst = b.cfg.Burst > 0 && now.Sub(b.passAt) < b.cfg.Burst
	if b.cfg.Disabled || b.inBurst {
		return
	}
	if b.idle && b.watched {
		b.level = max(b.level, b.cfg.StartLevel)
	}
	b.idle = false
}

// effective returns the level the sweeper works at: 0 within a burst,
// else the controller's level capped by how late the deletions are
// (cfg.LagBound).
func (b *backoff) effective() float64 {
	if b.inBurst {
		return 0
	}
	if b.lag <= 0 || b.cfg.LagBound <= 0 {
		return b.level
	}
	limit := float64(b.cfg.MaxLevel) * max(0, 1-float64(b.lag)/float64(b.cfg.LagBound))
	return min(b.level, limit)
}

// late records how late the earliest item of the last batch was when it
// was deleted (0 when the sweeper caught up).
func (b *backoff) late(lag time.Duration) { b.lag = lag }

// duty returns the fraction of time the sweeper works.
func (b *backoff) duty() float64 { return math.Exp2(-b.effective()) }

// batch returns the batch size at the current level: size·duty, and while
// foreground requests are watched no more than about cfg.BatchTime's worth
// of items at the last batch's pace, but not under size/minBatchDiv: a
// batch's time includes waiting for the source's locks, and under many
// writers that wait would otherwise shrink batches down to one item, each
// paying a whole wait (see BENCHMARKS.md, "Notes moved from code
// comments").
func (b *backoff) batch(size int) int {
	if b.cfg.Disabled || b.inBurst {
		return size
	}
	n := max(1, int(math.Round(float64(size)*b.duty())))
	if b.watched && b.perItem > 0 && b.cfg.BatchTime > 0 {
		n = min(n, max(int(b.cfg.BatchTime/b.perItem), size/minBatchDiv, 1))
	}
	return n
}

// minBatchDiv: the batch time bound never cuts a batch below
// ttlDeleteBatchSize/minBatchDiv items.
const minBatchDiv = 8

// reaped records one batch: it deleted items in took.
func (b *backoff) reaped(items int, took time.Duration) {
	if b.cfg.Disabled {
		return
	}
	if items > 0 {
		b.busy = b.busy || !b.inBurst
		b.perItem = max(took/time.Duration(items), 1)
	}
	if l := b.effective(); l > 0 {
		b.debt += time.Duration(float64(took) * (math.Exp2(l) - 1))
	}
}

// pause returns the pause to take before the next batch: the debt once it
// reaches minPause, else 0.
func (b *backoff) pause() time.Duration {
	if b.debt < minPause {
		return 0
	}
	return b.debt
}

// paused records a pause that lasted d (a timer may fire late: the extra
// time is credited, up to minPause).
func (b *backoff) paused(d time.Duration) {
	b.pauseDur = d
	b.debt = max(b.debt-d, -minPause)
}

// idleNow forgets the debt when the sweeper has nothing more to do: a
// pause is owed to the foreground only while deletions go on.
func (b *backoff) idleNow() { b.debt, b.lag, b.inBurst = 0, 0, false }
