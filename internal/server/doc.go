// Package server is mayfly's composition root: it opens the storage, builds
// the document and key-value models on it, registers their expiry sources
// with the one expiry engine, starts the sweeper and the listeners (MongoDB
// wire, RESP, admin HTTP), and stops them all gracefully.
//
// # Design
//
// Run starts every listener before it announces readiness with one log line
// (ReadyMessage) that carries every bound address, so scripts and tests can
// wait for it. Shutdown runs in the reverse order: stop accepting, let
// in-flight requests finish within Config.ShutdownTimeout, stop the sweeper,
// sync and close the storage.
//
// With a TLS certificate configured, Run wraps the MongoDB, RESP and admin
// listeners in tlsconf's handshaking listener; the optional plain listeners
// are second listeners of the same wire servers. Reload (SIGHUP) reads the
// TLS files and the admin token file again.
package server
