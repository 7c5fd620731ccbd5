//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package resp

// watchConn cannot peek at the socket on this platform: a blocked client
// notices a closed connection or a shutdown at its periodic checks only.
func watchConn(c *client) (gone <-chan struct{}, stop func()) {
	return make(chan struct{}), func() {}
}
