package tlsconf

import (
	"context"
	"crypto/tls"
	"errors"
	"log/slog"
	"net"
	"sync"
	"time"
)

// Listener accepts TCP connections and returns them once their TLS
// handshake succeeded. A handshake that fails or outlasts the handshake
// timeout closes its connection and is logged at debug level.
type Listener struct {
	inner   net.Listener
	config  *tls.Config
	timeout time.Duration
	log     *slog.Logger

	ready  chan net.Conn
	failed chan error // accept errors of inner, in order
	done   chan struct{}
	once   sync.Once
	// ctx ends the handshakes in progress when the listener closes.
	ctx    context.Context
	cancel context.CancelFunc
}

// Listen serves TLS with c on inner. Closing the returned listener closes
// inner and the connections still in their handshake.
func (c *Config) Listen(inner net.Listener, log *slog.Logger) *Listener {
	if log == nil {
		log = slog.Default()
	}
	ctx, cancel := context.WithCancel(context.Background())
	l := &Listener{
		inner: inner, config: c.TLSConfig(), timeout: c.opts.handshakeTimeout(), log: log,
		ready: make(chan net.Conn), failed: make(chan error), done: make(chan struct{}),
		ctx: ctx, cancel: cancel,
	}
	go l.acceptLoop()
	return l
}

// IsTLS reports that the listener's connections speak TLS.
func (l *Listener) IsTLS() bool { return true }

// Accept returns the next connection whose handshake succeeded, or the
// error the TCP listener's Accept met.
func (l *Listener) Accept() (net.Conn, error) {
	select {
	case c := <-l.ready:
		return c, nil
	case err := <-l.failed:
		return nil, err
	case <-l.done:
		return nil, net.ErrClosed
	}
}

// Close closes the TCP listener and the connections in their handshake.
func (l *Listener) Close() error {
	var err error
	l.once.Do(func() {
		close(l.done)
		l.cancel()
		err = l.inner.Close()
	})
	return err
}

// Addr returns the TCP listener's address.
func (l *Listener) Addr() net.Addr { return l.inner.Addr() }

func (l *Listener) acceptLoop() {
	for {
		nc, err := l.inner.Accept()
		if err != nil {
			select {
			case l.failed <- err:
			case <-l.done:
				return
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue // the caller backs off and accepts again
			}
			return
		}
		go l.handshake(nc)
	}
}

// handshake runs the server side of the handshake within the timeout and
// hands the connection to Accept.
func (l *Listener) handshake(nc net.Conn) {
	tc := tls.Server(nc, l.config)
	ctx, cancel := context.WithTimeout(l.ctx, l.timeout)
	err := tc.HandshakeContext(ctx)
	cancel()
	if err != nil {
		l.log.Debug("tls: handshake failed", "remote", nc.RemoteAddr().String(), "err", err)
		nc.Close()
		return
	}
	select {
	case l.ready <- tc:
	case <-l.done:
		tc.Close()
	}
}
