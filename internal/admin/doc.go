// Package admin is mayfly's admin HTTP API: health and readiness probes,
// Prometheus /metrics, the JSON API under /v1/ that the mayfly CLI drives,
// and the web console at / (console.go) with the read-only JSON it reads
// under /v1/console/.
//
// # Design
//
// The package owns no state: the server passes in what each endpoint reads
// (a Prometheus gatherer, a readiness function). Only the server owns the
// metrics registry, as only the program that embeds Pebble registers its
// metrics.
//
// Bearer tokens come from a token file (TokenFile), held as SHA-256
// digests that a presented token is compared with in constant time; the
// server reloads the file on SIGHUP. Tokens guard /v1/ by permission and
// the profiler by presence; /metrics and the probes only when the server
// asks for it (Options.RequireAuthForMetrics).
package admin
