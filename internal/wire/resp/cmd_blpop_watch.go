//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package resp

import (
	"crypto/tls"
	"sync/atomic"
	"syscall"
	"time"
)

// watchConn watches a blocked client's connection without reading from it:
// gone is closed when the peer closes it (a peek finds end of file), it
// fails, or the server stops it (Shutdown sets a read deadline, CLIENT
// KILL closes it). Data the client sends meanwhile stays in the socket for
// the connection loop; the watch then ends without a verdict and the
// blocked client relies on its periodic checks. stop ends the watch and
// restores the connection's read deadline.
func watchConn(c *client) (gone <-chan struct{}, stop func()) {
	if c.lc != nil {
		return c.lc.watch()
	}
	ch := make(chan struct{})
	nc := c.nc
	if tc, isTLS := nc.(*tls.Conn); isTLS {
		// The TCP socket under TLS: a peer gone without a close_notify
		// alert shows as on a plain connection; the alert itself is data,
		// which ends the watch without a verdict.
		nc = tc.NetConn()
	}
	sc, ok := nc.(syscall.Conn)
	if !ok {
		return ch, func() {}
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return ch, func() {}
	}
	var stopped atomic.Bool
	done := make(chan struct{})
	go func() {
		defer close(done)
		var n int
		var perr error
		err := rc.Read(func(fd uintptr) bool {
			var b [1]byte
			n, _, perr = syscall.Recvfrom(int(fd), b[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
			return perr != syscall.EAGAIN && perr != syscall.EWOULDBLOCK
		})
		switch {
		case err != nil && stopped.Load():
			// Our own stop.
		case err != nil, perr != nil, n == 0:
			close(ch)
		}
	}()
	return ch, func() {
		stopped.Store(true)
		c.nc.SetReadDeadline(time.Now())
		<-done
		c.nc.SetReadDeadline(time.Time{})
		if c.stopping.Load() {
			c.nc.SetReadDeadline(time.Now())
		}
	}
}
