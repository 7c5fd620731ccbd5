// Package bench is the load generator behind `mayfly bench`: it drives any
// server that speaks RESP and any server that speaks the MongoDB wire
// protocol with the same load, so one run measures mayfly and its peers
// side by side.
//
// # Clients
//
// A benchmark must measure the server, not the client. The throughput
// workloads (kv, doc) therefore drive the servers by default through lean
// clients of the package's own (Options.Client = ClientLean), built the way
// redis-benchmark is: one TCP connection per client, requests encoded into
// a reused buffer, replies read by a small parser that checks what the
// workload needs and nothing more. RESP: a RESP2 writer and reader; a
// pipeline of P commands is P commands written at once and P replies
// read. MongoDB: OP_MSG with flagBits 0 and one body section, after the
// hello to admin a driver's handshake sends; replies must say ok: 1 (and
// carry no writeErrors), an insert n: the number of documents it carries,
// and a find's cursor.firstBatch says whether the document was found.
// Error replies (RESP "-ERR ...", MongoDB ok: 0) fail the phase with the
// server's message in the result's notes; they are never counted as
// operations.
//
// go-redis v9 and the MongoDB Go driver v2 remain selectable
// (ClientDriver, `--client=driver`) to measure what an application sees.
// They spend about as much CPU per request as the server does, so on a
// small machine their figures, and ratios between them, are the client's
// (BENCHMARKS.md, "Notes moved from code comments"). Every kv and doc Result names its
// client. The expiry workloads (storm, sparse, steady, purge) keep the
// drivers: their request rates are far below what either client can
// send.
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
// targets), the lean clients' RESP reader and OP_MSG codec (error replies,
// malformed and short frames) have table tests. An end-to-end test starts
// Debian's redis-server on a free loopback port and runs tiny versions of
// every RESP workload in a few seconds; it is skipped only when
// redis-server is absent and CI is unset. Another runs kv and doc through
// both clients against a mayfly server started in the test process (the
// only place the package touches mayfly's code) and against redis-server.
package bench
