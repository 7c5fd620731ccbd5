// Package expiry is mayfly's shared expiry engine: one sweeper that
// deletes expired items from every source (Redis keys and hash fields,
// MongoDB TTL indexes, TTL policies) soon after they are due, in bounded
// batches, fairly, under a rate limit, and with each deletion's lag
// measured.
//
// # Design
//
// Sources. A Source is a time-ordered index of expiring items that the
// engine never reads itself: it asks NextDue (a seek to the first entry) and
// calls Reap(now, budget), which deletes items due at or before now, earliest
// first. docdb and kv implement sources and Register them; the engine calls
// nothing else. A source that also implements Counter can report how many
// items are due (the backlog gauge, dry runs).
//
// Wake-ups. The sweeper keeps each source's next due time and sleeps until
// the earliest one, but never less than MinPeriod (10ms) after the end of
// the previous pass, so items due close together are reaped together, and
// never longer than ttlMonitorSleepSecs: a pass runs at least that often
// even when nothing is due (MongoDB's tests wait for metrics.ttl.passes to
// move), and such a periodic pass asks every source for its next due time.
// A writer that creates or moves an item calls Wake(due) after the write is
// visible. Wake keeps the earliest such time in an atomic hint and, only if
// it is earlier than the published sleep deadline, sends a non-blocking
// signal; it takes no lock. The sweeper publishes its deadline before
// re-reading the hint (and Wake stores the hint before reading the
// deadline), so a wake-up is never lost. At the start of each sub-pass the
// sweeper consumes the hint: a hinted time already due makes it ask every
// source, since the hint does not say which source it came from; a later
// one is kept for the next sleep. Otherwise only sources not yet asked or
// known to be due are asked. Changing ttlMonitorSleepSecs or
// ttlMonitorEnabled wakes the sweeper at once; the new deadline is the
// start of the current sleep plus the new value, as in MongoDB. Unlike
// MongoDB, Run starts with a pass instead of a sleep, so a backlog left by
// downtime goes at once.
//
// Passes and sub-passes (MongoDB's _doTTLPass). A pass captures now once;
// every Reap of the pass uses it, so items that fall due during a long pass
// wait for the next one. A pass runs sub-passes until one ends with no
// source left with work. A sub-pass asks the sources for their next due
// time, visits each due source once, puts those that ran out of budget with
// items left (Reaped.More) on a "more work" list, and keeps visiting that
// list until it is empty or ttlMonitorSubPassTargetSecs has elapsed (0:
// once). Each visit is bounded by ttlIndexDeleteTargetDocs items and
// ttlIndexDeleteTargetTimeMS (0 = unlimited), unless ttlMonitorBatchDeletes
// is false, in which case a visit reaps the source to completion. A visit
// calls Reap once per storage batch (Budget.MaxItems = Budget.BatchSize ≤
// ttlDeleteBatchSize) and checks its budget, the rate limit and the back-off
// between batches; Budget.Deadline is the visit's time budget. A pass cut
// short (the sweeper stops, or ttlMonitorEnabled turns false, which the
// sweeper checks before every batch) is not counted in passes.
//
// Fairness. Because a visit is bounded, a source with a million due items
// gets one visit's worth (50,000 by default) before every other due source
// has had its turn: a small source is done in the first sub-pass. Each
// sub-pass also starts one source further along the list (round-robin), so
// no source is always first when the rate limit or the time targets bind.
//
// Rate limit. ttlMaxDeletesPerSecond (0 = unlimited) is a token bucket
// shared by all sources, refilled continuously and holding at most a tenth
// of a second's worth of tokens (at least one). Before each batch the
// sweeper takes tokens for it, waiting if needed, and shrinks the batch to
// the bucket's capacity; tokens a batch did not use are returned.
//
// Back-off. Front ends call ObserveForeground(d) for every request as it
// ends; it adds one to one of two lock-free cumulative histograms of
// latencies (buckets a quarter of a doubling wide): busy for a request that
// ended during a batch of the sweeper or within a millisecond after one
// (it may have waited for it), idle for the others. The tag goes by when a
// request ended, not by whether it overlapped a batch: a long request (an
// INFO walking an index) overlaps some batch almost always, and tagged by
// overlap made the busy requests look slow for what they were (a RESP
// storm of 1,000,000 keys with INFO polled every 20 ms: 67,000 deleted in
// 90 s, against all in 69 s before the controller). The sweeper paces
// itself by them: it works a fraction duty = 2^-level of the time. Before
// each pass and each batch it judges a window, which is the span since the
// previous judged window once it is at least Backoff.Window (500ms) long
// and holds at least Backoff.MinSamples (20) requests; a shorter or sparser
// window stays open, and one open for four Windows without MinSamples
// requests is judged calm (next to nothing to protect). The rule compares
// p90s (the upper bound of the bucket holding the 90th percentile), not
// p99s: on a busy machine a window's p99 is a handful of requests other
// processes delayed and moves tenfold from one window to the next whatever
// the sweeper does, while what the sweeper causes (requests waiting for a
// core or a lock) lifts the body of the distribution (in a storm of
// 100,000 documents on a busy 2-core machine, full speed took findOne's
// p90 from 0.3ms to 5-40ms).
//
//   - the baseline is the foreground's p90 without the sweeper: a window
//     with MinSamples idle requests moves it halfway toward their p90, so
//     a heavier workload (every request slower, overlapped or not) is not
//     taken for the sweeper's doing; with none yet, the first judged
//     window sets it;
//   - a window with MinSamples busy requests is slow when their p90 >
//     Backoff.Factor (2) × baseline and > Backoff.Floor (50µs): the level
//     rises by log2(p90 / (Factor × baseline)), at most 1 (the duty at most
//     halves), up to Backoff.MaxLevel (6, a duty of 1/64);
//   - any other window is calm: the level falls by Backoff.Recover (0.5),
//     down to 0.
//
// This is additive increase on a log scale and a decrease in proportion to
// the excess: the sweeper runs flat out while the foreground is calm and
// yields as much as it takes when it is not, but never lets deletions fall
// more than about Backoff.LagBound (500ms) behind: after each batch the level
// is capped at MaxLevel·(1 − lag/LagBound), lag being how late the batch's
// earliest item was, so the duty climbs back to full speed as the lag
// nears the bound (the lag is forgotten when a pass ends). The foreground
// latency includes waiting for the store's lock, which every batch holds,
// so under a busy foreground every window is slow; without the bound a
// RESP storm of 300,000 keys went at 2,100 deletions/s (read p99 1.4x
// before the storm), with it at full speed after half a second. The first batch after a window
// with foreground requests and no deletion starts at Backoff.StartLevel (1,
// half speed), so a storm does not hit the foreground at full speed for a
// whole window before the first verdict; calm windows bring it to full
// speed within a second.
//
// At level L each batch holds ttlDeleteBatchSize·2^-L items (at least one)
// and a batch that took t leaves a pause of t·(2^L − 1) owed; the debt is
// paid before the next batch once it reaches a millisecond (shorter timers
// would fire late; a late timer's extra time is credited). With
// Backoff.BatchTime set (off by default), while the last judged window had
// foreground requests a batch also holds no more than about BatchTime of
// work at the pace of the previous batch (but at least
// ttlDeleteBatchSize/8 items, since a batch's time includes waiting for the
// locks it takes). The sweeper does not yield between batches
// (runtime.Gosched): kv's store lock then went to the queued clients first
// and a RESP steady load's lag p50 went from 0.8 s to 4.6 s. The debt is
// forgotten when a pass ends.
//
// Catch-up. A source that implements CatchUp (a MongoDB TTL index) waits
// for a lock that foreground writers take in turn too, so it gets one batch
// per round of the writers' turns, each of which holds a whole request: 16
// connections inserting 500 documents each per turn put 8,000 documents
// behind every 1,000-document batch, and the reaper fell behind by the
// same share at every round however fast it deleted (mayfly bench steady
// at 50,000 documents/s: lag p99 19 s, backlog 320,000 at load 13-15). Its
// batch is therefore ttlDeleteBatchSize × scale before the back-off's
// 2^-L: after a batch that took every item it was allowed and whose
// earliest item was more than 250ms late, scale doubles, up to
// CatchUpFactor (64 at most); after any other batch it halves, down to 1.
// The back-off still applies on top (a slow window halves the batch and
// owes the same proportional pause), so the duty rule is unchanged.
//
// Priority. The back-off paces the sweeper by time; the operating system
// can do better, handing a CPU to a request the moment it wakes. A source
// gives the part of a batch that reads and decides without holding a lock
// foreground requests wait for (the TTL index reaper reads the due
// documents and builds their deletions) to Budget.Prepare, and with
// Config.Idle set the engine runs it there: on a thread at the lowest CPU
// priority (internal/lowprio), waiting for it to finish. The commit stays
// on the sweeper's thread at normal priority, so a starved thread never
// holds the collection's lock. A thread at the lowest priority gets no CPU
// while the foreground keeps every CPU busy, so the engine checks each
// preparation: one that took at least 20ms but got less than a tenth of it
// as CPU time (Idle.Do reports both) is starved, and preparations then run
// on the sweeper's own thread for a second before the idle thread is tried
// again. During a storm the idle thread competes only with compactions,
// which run at low priority too, and gets a third or more of its time;
// under a foreground that saturates the CPUs it gets almost none. A
// preparation that gets a tenth or more is not starved and may still fall
// behind a saturating foreground, and a starved one may take seconds, so
// the engine also asks Idle.Spare, the share of all CPUs' time that
// normal-priority work left lately, before each preparation, and prepares
// on its own thread while that is under a quarter: under 50,000 expiring
// inserts a second on two cores, most preparations then ran at normal
// priority.
// Stats.Prepare counts where preparations ran.
//
// Lag. After each Reap returns, the engine reads the clock once and records
// for every deleted item (Reaped.Due) lag = that time − due, clamped at 0, in
// a histogram per source, per kind and in total. Buckets are log-spaced, two
// per doubling, from 1ms to about 70 minutes, plus an overflow bucket;
// Histogram.Quantile interpolates inside a bucket as Prometheus does and is
// capped by the exact maximum.
//
// Backlog. For a Counter the backlog gauge is the number of due-but-present
// items: zero for a source found with nothing due at the current time,
// counted with CountDue at the end of a sub-pass for a source left with
// work, and for one whose items fell due after its pass started (they wait
// for the next pass) when it is found with nothing due as of the pass's
// now (both at most once per BacklogInterval), and on demand with
// Engine.CountDue. For other sources a
// backlog left mid-pass is unknown.
//
// Rate. The engine keeps exponentially decayed sums (τ = 5s of reaping time)
// of items deleted and time spent reaping, waits and pauses included; their
// ratio is the deletion rate that EstimateDuration uses for dry runs, capped
// by ttlMaxDeletesPerSecond.
//
// Errors. A failing NextDue, Reap or CountDue is logged with the source's
// name and counted; the sweeper moves on to the next source and leaves the
// failed one alone for ErrorRetry (1s), as MongoDB logs and continues. A
// source that claims due items but deletes none is held back the same way,
// so it cannot make the sweeper spin. A panic in a source is a bug and is not
// recovered.
//
// Events. Config.OnReaped is called on the sweeper goroutine after every
// Reap that deleted something; it is where expiry events and, later,
// replication hook in. Only the leader will run the sweeper.
//
// Parameters. Params holds the runtime parameters; Engine.GetParameter and
// Engine.SetParameter read and write them by their MongoDB names with
// MongoDB's conversions and validators, so the wire layer's getParameter and
// setParameter can call them directly.
//
// # Testing
//
// Every test that involves time runs inside testing/synctest with in-memory
// fake sources (a sorted slice of due times honouring the whole Reap
// contract) and a clock that is the bubble's time plus an offset the fakes
// advance to model the time a batch takes; tests let fake time pass with
// timers, never with real waits. They cover wake-up precision (an item due
// at T is reaped at T, or MinPeriod after the previous pass), Wake during a
// long sleep, writes found by the periodic pass, ttlMonitorSleepSecs changes
// waking the sweeper, idle passes, the disabled monitor (also mid-pass),
// fairness with 1,000,000 against 10 items, each budget (targetDocs,
// targetTimeMS, sub-pass target, batching off), one now per pass, Unregister
// during a pass, source errors and stalls, backlog, the rate limit, the
// back-off under simulated foreground latency (slow start, speed-up, halving
// to the floor with proportional pauses, recovery), a heavier workload it
// must not take for its own doing, and its batch time bound,
// lag quantiles, parameters and configuration. goleak checks that no goroutine outlives the tests.
// Benchmarks measure Wake, ObserveForeground and the engine's own cost of
// sweeping 1,000,000 items.
package expiry
