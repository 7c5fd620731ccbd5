package mongo

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb"
	"github.com/mayfly/mayfly/internal/docdb/session"
	"github.com/mayfly/mayfly/internal/mongoauth"
)

// Server serves the MongoDB wire protocol on the listeners given to Serve.
// Create it with NewServer; it is safe for concurrent use.
type Server struct {
	opts    Options
	log     *slog.Logger
	ramLog  *RAMLog
	db      *docdb.Engine
	now     func() time.Time
	started time.Time
	host    string
	pid     int
	// processID is hello's topologyVersion.processId, new at every start.
	processID bson.ObjectID

	params  *paramRegistry
	cursors *cursorRegistry
	// sessions are the logical sessions in use; sessionsIndexed is set
	// once config.system.sessions has its TTL index.
	sessions        *session.Registry
	sessionsIndexed atomic.Bool
	clock           clusterClock
	// txnMetrics count transactions; txnLifetimeSecs is
	// transactionLifetimeLimitSeconds.
	txnMetrics      txnMetrics
	txnLifetimeSecs atomic.Int64
	ops             *opRegistry
	metrics         *metrics
	// failPoint is the failCommand fail point (TestCommands only).
	failPoint failPoint
	// getMoreFailPoint is failGetMoreAfterCursorCheckout (TestCommands only).
	getMoreFailPoint getMoreFailPoint
	// txnWriteFailPoint is onPrimaryTransactionalWrite (TestCommands only).
	txnWriteFailPoint txnWriteFailPoint

	// authGen counts the changes of users and roles: a connection whose
	// user's privileges were resolved at an older generation resolves
	// them again. throttle delays failed authentications.
	authGen  atomic.Uint64
	throttle *mongoauth.Throttle
	// authMu serializes the commands that change users and roles.
	authMu sync.Mutex

	// base is the parent of every connection context; cancelling it aborts
	// every request (Shutdown past its deadline).
	base       context.Context
	cancelBase context.CancelFunc

	mu        sync.Mutex
	listeners map[net.Listener]struct{}
	conns     map[*conn]struct{}
	// changed is closed and replaced whenever a connection opens, closes
	// or starts or stops watching its socket, so that a caller can wait
	// for such a change (awaitChange) instead of polling.
	changed chan struct{}
	closing bool
	closed  chan struct{} // closed when Shutdown starts
	connWG  sync.WaitGroup
	bgWG    sync.WaitGroup

	nextConnID    atomic.Int64
	nextRequestID atomic.Int32
}

// ErrServerClosed is returned by Serve after Shutdown.
var ErrServerClosed = errors.New("mongo: server closed")

// NewServer returns a Server for opts. It panics on invalid options, which
// are a programming error of the caller (the composition root).
func NewServer(opts Options) *Server {
	opts.EnsureDefaults()
	if err := opts.Validate(); err != nil {
		panic(err)
	}
	ram := opts.RAMLog
	log := opts.Logger.With("component", "NETWORK")
	if ram == nil {
		ram = NewRAMLog(0)
		log = slog.New(ram.Handler(opts.Logger.Handler())).With("component", "NETWORK")
	}
	host, _ := os.Hostname()
	base, cancel := context.WithCancel(context.Background())
	s := &Server{
		opts:       opts,
		log:        log,
		ramLog:     ram,
		db:         opts.DB,
		now:        opts.Now,
		started:    opts.Now(),
		host:       host,
		pid:        os.Getpid(),
		processID:  bson.NewObjectID(),
		params:     newParamRegistry(opts.Parameters),
		metrics:    newMetrics(),
		ops:        newOpRegistry(),
		base:       base,
		cancelBase: cancel,
		listeners:  map[net.Listener]struct{}{},
		conns:      map[*conn]struct{}{},
		changed:    make(chan struct{}),
		closed:     make(chan struct{}),
	}
	s.throttle = mongoauth.NewThrottle(opts.Now)
	s.cursors = newCursorRegistry(opts.Now, opts.CursorTimeout)
	s.sessions = session.New(logicalSessions * time.Minute)
	s.txnLifetimeSecs.Store(defaultTxnLifetime)
	s.params = newParamRegistry(append(append([]Parameter(nil), opts.Parameters...), s.txnParameter()))
	s.opts.Status = append(append([]StatusSection(nil), opts.Status...), StatusSection{Path: "transactions", Value: s.txnStatus})
	s.clock.s = s
	s.bgWG.Go(s.reapCursors)
	return s
}

// Serve accepts connections on ln and serves each on its own goroutine
// until Shutdown; it then returns ErrServerClosed. It may be called for
// several listeners at once. ln is closed when Serve returns.
func (s *Server) Serve(ln net.Listener) error {
	s.mu.Lock()
	if s.closing {
		s.mu.Unlock()
		ln.Close()
		return ErrServerClosed
	}
	s.listeners[ln] = struct{}{}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.listeners, ln)
		s.mu.Unlock()
		ln.Close()
	}()
	var backoff time.Duration
	for {
		nc, err := ln.Accept()
		if err != nil {
			select {
			case <-s.closed:
				return ErrServerClosed
			default:
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				// Temporary accept failures (out of file descriptors):
				// back off as net/http does.
				backoff = min(max(2*backoff, 5*time.Millisecond), time.Second)
				s.log.Warn("accept failed, retrying", "error", err, "delay", backoff)
				select {
				case <-time.After(backoff):
				case <-s.closed:
					return ErrServerClosed
				}
				continue
			}
			return fmt.Errorf("mongo: accept: %w", err)
		}
		backoff = 0
		s.startConn(nc)
	}
}

func (s *Server) startConn(nc net.Conn) {
	s.mu.Lock()
	if s.closing {
		s.mu.Unlock()
		nc.Close()
		return
	}
	if n := len(s.conns); n >= s.opts.MaxConnections {
		s.mu.Unlock()
		s.metrics.rejectedConns.Add(1)
		// MongoDB's words (log id 22942); the client sees the connection
		// closed.
		s.log.Info("Connection refused because there are too many open connections",
			"remote", nc.RemoteAddr().String(), "connectionCount", n, "maxIncomingConnections", s.opts.MaxConnections)
		nc.Close()
		return
	}
	c := newConn(s, nc, s.nextConnID.Add(1))
	s.conns[c] = struct{}{}
	s.changedLocked()
	s.connWG.Add(1)
	s.mu.Unlock()
	s.metrics.totalConns.Add(1)
	go func() {
		defer s.connWG.Done()
		c.serve()
		s.mu.Lock()
		delete(s.conns, c)
		s.changedLocked()
		s.mu.Unlock()
	}()
}

// changedLocked wakes the callers of awaitChange; s.mu is held.
func (s *Server) changedLocked() {
	close(s.changed)
	s.changed = make(chan struct{})
}

// awaitChange returns a channel closed at the next change of the
// connections (see Server.changed).
func (s *Server) awaitChange() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.changed
}

// Shutdown stops accepting connections, lets every request being processed
// finish and send its reply, then closes every connection and cursor. If
// ctx ends first, the requests still running are cancelled, their
// connections closed, and ctx's error returned once they have stopped.
func (s *Server) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	if !s.closing {
		s.closing = true
		close(s.closed)
		for ln := range s.listeners {
			ln.Close()
		}
		for c := range s.conns {
			c.stopReading()
		}
	}
	s.mu.Unlock()

	done := make(chan struct{})
	go func() {
		s.connWG.Wait()
		s.bgWG.Wait()
		close(done)
	}()
	var err error
	select {
	case <-done:
	case <-ctx.Done():
		err = ctx.Err()
		// Close the connections before cancelling their requests, so a
		// request that returns once cancelled finds its connection gone
		// and sends no reply.
		s.mu.Lock()
		for c := range s.conns {
			c.nc.Close()
		}
		s.mu.Unlock()
		s.cancelBase()
		<-done
	}
	s.cancelBase()
	s.cursors.closeAll()
	return err
}

// nextReplyID returns the requestID of the next reply.
func (s *Server) nextReplyID() int32 { return s.nextRequestID.Add(1) }

// connectionCount returns the number of open client connections.
func (s *Server) connectionCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.conns)
}
