// Package bench is the load generator behind `mayfly bench`: it drives any
// server that speaks RESP and any server that speaks the MongoDB wire
// protocol, through the same public clients applications use (go-redis v9
// and the MongoDB Go driver v2), so one run measures mayfly and its peers
// side by side.
//
// # Design
//
// A Target is one server reached over one protocol and carries a label
// ("mayfly", "redis", "ferretdb"). A workload runs against every target
// whose protocol it supports, runs after runs, targets interleaved so that
// drift on the machine hits them alike; the reported figure of every metric
// is the median of its runs. Ratios are always baseline / peer for the same
// workload, metric and protocol.
//
// The package imports nothing from mayfly: every figure comes from what any
// peer offers. Physical deletion is read from the server's own counters
// (Redis INFO: keyspace keys= and stats expired_keys; MongoDB serverStatus:
// metrics.ttl.deletedDocuments), never from reads, because mayfly hides
// expired items at once and reads would say they are gone before they are.
// Only the purge workload looks at the server's data directory, and only
// when it is given one.
//
// Throughput workloads (kv, doc) are closed loops: N clients each send the
// next request as soon as the previous answer arrives, and latencies go to
// a log-linear histogram (under 1% relative error) so memory stays bounded
// however fast the server is. Expiry workloads (storm, sparse, steady)
// measure foreground reads open-loop at a fixed rate and keep every sample
// with its time, so the latency over time can be charted around the storm.
//
// Every loop is bounded in count and time: durations, item counts and
// --timeout bound each phase, and a phase that outlives its bound reports
// what was left rather than waiting on.
//
// # Testing
//
// The statistics (percentiles, histograms, medians, ratios, the issue's
// targets) have table tests. An end-to-end test starts Debian's
// redis-server on a free loopback port and runs tiny versions of every
// RESP workload in a few seconds; it is skipped only when redis-server is
// absent and CI is unset.
package bench
