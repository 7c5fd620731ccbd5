// Package expiry is mayfly's shared expiry engine: one sweeper that
// deletes expired items from every source (Redis keys and hash fields,
// MongoDB TTL indexes, TTL policies) soon after they are due, in bounded
// batches, fairly, under a rate limit, and with each deletion's lag
// measured.
//
// Sources. A Source is a time-ordered index of expiring items; docdb and kv
// implement and Register them. The engine asks NextDue and has the source
// reap one bounded batch per ReapBatch call (the Source documentation states
// the contract); a source may leave whole due key spans to the engine, which
// deletes each with one range deletion. The engine owns the rest: the loop
// over batches, each visit's budget, the rate limit, pacing and statistics.
//
// Passes. The sweeper sleeps until the earliest next due time, at least
// MinPeriod after the previous pass and at most ttlMonitorSleepSecs; Wake
// (lock-free, never lost) brings a pass forward. A pass captures one now for
// all its batches and runs sub-passes, as MongoDB's _doTTLPass does, until
// no source has items due at that now. A sub-pass visits each due source
// once, then revisits those left with work until ttlMonitorSubPassTargetSecs
// has elapsed. A visit is bounded by ttlIndexDeleteTargetDocs items and
// ttlIndexDeleteTargetTimeMS (unless ttlMonitorBatchDeletes is off) and is
// made of batches of at most ttlDeleteBatchSize items; its first batch
// always runs, so every visit makes progress. Each sub-pass starts one
// source further along the list, so no source is always first.
//
// Pacing. ttlMaxDeletesPerSecond is a token bucket shared by all sources.
// A pass's first Backoff.Burst is never paced: a load the sweeper keeps up
// with, whose every pass ends within it, is deleted at full speed and at
// normal priority, since pacing would only make its deletions later. Past
// its Burst a pass is a storm, and the back-off compares the p90 latency
// of foreground requests that ended during or just after a batch
// (ObserveForeground) with a baseline of the others: a slow window with
// paced work halves the duty at most, a calm one raises it, a batch runs
// at batch·duty items and owes a proportional pause, and the duty climbs
// back to full speed as deletions near Backoff.LagBound behind (the
// backoff type states the full rule). A CatchUp source's batches grow
// while they are full and late. With Config.Idle, a paced batch's
// preparation (Batch.Prepare) runs at the lowest CPU priority unless that
// thread is starved or the foreground leaves too little CPU; the commit
// stays on the sweeper's thread.
//
// Accounting. Lag (end of the batch − due) is recorded per source, per kind
// and in total. The backlog of a Counter is the number of its items due at
// or before a time At; it is counted at most once per BacklogInterval and
// stays true between counts: each batch takes off the items it deleted that
// were due by At, so the figure stays known and exact as of At, and what
// clients change meanwhile (a due item deleted on access or given a new
// expiry) shows at the next count. A batch that leaves due items (its
// visit's budget, the rate limit or a sub-pass target ends the work, not an
// empty source) has the source counted again, at the current time, once its
// figure is unknown or BacklogInterval old, so items falling due during a
// long pass are counted too; a source with nothing due has a
// backlog of 0. A failing source is logged, counted and left alone for
// ErrorRetry; so is one that reports More without progress. Time comes from
// Config.Now, so tests run the engine in testing/synctest with fake sources.
package expiry
