// Package tlsconf is the TLS configuration of mayfly's listeners: the
// server certificate and its key, the certificate authority that client
// certificates are verified against, whether clients must present one, and
// the lowest protocol version accepted.
//
// # Design
//
// Config loads the files once and serves every handshake through
// tls.Config.GetConfigForClient, so Reload (on SIGHUP) swaps the
// certificate and the authority for the handshakes that follow while
// established connections keep theirs. A reload that fails changes
// nothing. Listen wraps a TCP listener so that Accept returns only
// connections whose handshake succeeded; each handshake runs on its own
// goroutine within a bounded time, so a client that sends plain text or
// nothing at all is closed without delaying the others.
package tlsconf
