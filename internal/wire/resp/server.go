package resp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mayfly/mayfly/internal/kv"
	"github.com/mayfly/mayfly/internal/script"
)

// Version is the Redis version mayfly reports (INFO, HELLO): the release
// whose behaviour it reproduces.
const Version = "7.0.15"

// ExpiryStats are the figures of INFO stats that the expiry engine owns.
type ExpiryStats struct {
	StalePerc       float64 // expired_stale_perc
	TimeCapReached  int64   // expired_time_cap_reached_count
	CPUMilliseconds int64   // expire_cycle_cpu_milliseconds
}

// Options configure a Server.
type Options struct {
	// KV is the data model the commands run on. Required.
	KV *kv.Store
	// Logger receives connection and background errors; nil means
	// slog.Default().
	Logger *slog.Logger
	// Now is the clock of TIME and of client ages; nil means time.Now. Key
	// expiry uses the kv store's clock.
	Now func() time.Time
	// Limits are the protocol limits; the zero value means DefaultLimits.
	Limits Limits
	// RequirePass is the initial requirepass; empty means no password.
	RequirePass string
	// MaxClients is the initial maxclients; zero means 10000.
	MaxClients int
	// ObserveLatency, when set, receives the time each command took (the
	// expiry engine's ObserveForeground).
	ObserveLatency func(time.Duration)
	// ObserveCommand, when set, receives each command's name (its table
	// name, "unknown" for one not in the table) and the time it took, as
	// ObserveLatency measures it (the server's request latency metric).
	ObserveCommand func(name string, d time.Duration)
	// ExpiryStats, when set, supplies the expiry figures of INFO stats.
	ExpiryStats func() ExpiryStats
	// SetActiveExpire, when set, is called by DEBUG SET-ACTIVE-EXPIRE.
	SetActiveExpire func(on bool)
	// OnConfigSet, when set, is told of every successful CONFIG SET of hz
	// and active-expire-effort, so the server can tune the engine; an error
	// fails the CONFIG SET.
	OnConfigSet func(name, value string) error
	// PushBufferLimit is the most bytes of undelivered pub/sub messages a
	// client may hold before it is disconnected; zero means 32 MiB (Redis's
	// client-output-buffer-limit pubsub hard limit).
	PushBufferLimit int
	// QueryBufferLimit is the initial client-query-buffer-limit: the most
	// bytes of a request not yet complete that a client may hold (each
	// argument already parsed counts 24 bytes more); past it the client is
	// closed, as Redis does. Zero means 1 GiB, Redis's default.
	QueryBufferLimit int64
	// FrameTimeout bounds how long a client may take to send the rest of a
	// request once its first byte arrived, and to take each 4 MiB of a
	// reply; past it the connection is closed. Idle clients between
	// requests are not affected (that is CONFIG timeout), nor are clients
	// blocked in BLPOP. Zero means DefaultFrameTimeout; negative means no
	// limit.
	FrameTimeout time.Duration
	// BlockPoll bounds how long a client blocked in BLPOP and the like
	// sleeps without re-checking its deadline, its connection and its keys
	// (a safety net: the commands that fill a key serve its waiters at
	// once). Zero means DefaultBlockPoll.
	BlockPoll time.Duration
	// Shutdown, when set, is how SHUTDOWN stops the process: it asks the
	// server to stop as a signal would, and returns at once. Without it
	// SHUTDOWN answers that it could not.
	Shutdown func()
	// TLSParams are the CONFIG values of the tls-* parameters in effect
	// (tls-cert-file, tls-auth-clients, ...) when the listeners serve TLS,
	// which CONFIG SET may set only to these values; then port shows the
	// plain listener's port, 0 without one, and tls-port the port of the
	// listeners whose IsTLS method says so.
	TLSParams map[string]string
	// ACLFile is the aclfile: the ACL users LoadACL and ACL LOAD read and
	// ACL SAVE writes; empty means none.
	ACLFile string
	// EventLoop serves plain TCP connections from one epoll loop per core
	// instead of a goroutine each (eventloop.go; Linux only, elsewhere and
	// for TLS connections it has no effect). CONFIG GET resp-event-loop
	// shows it.
	EventLoop bool
	// Replica, when set, is the replica set this server is a member of:
	// ROLE, INFO replication and WAIT describe it, and writes are refused
	// on a follower. Nil is a standalone master.
	Replica Replica
}

// DefaultFrameTimeout is the frame timeout when Options.FrameTimeout is
// zero.
const DefaultFrameTimeout = 60 * time.Second

func (o *Options) ensureDefaults() {
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Limits == (Limits{}) {
		o.Limits = DefaultLimits()
	}
	if o.MaxClients == 0 {
		o.MaxClients = 10000
	}
	if o.PushBufferLimit == 0 {
		o.PushBufferLimit = 32 << 20
	}
	if o.QueryBufferLimit == 0 {
		o.QueryBufferLimit = 1 << 30
	}
	if o.FrameTimeout == 0 {
		o.FrameTimeout = DefaultFrameTimeout
	}
	if o.BlockPoll <= 0 {
		o.BlockPoll = DefaultBlockPoll
	}
}

// ErrServerClosed is returned by Serve after Shutdown.
var ErrServerClosed = errors.New("resp: server closed")

// Server serves the Redis protocol on listeners. Create it with NewServer.
type Server struct {
	opts  Options
	kv    *kv.Store
	log   *slog.Logger
	start time.Time
	cmds  map[string]*command

	mu      sync.Mutex
	clients map[uint64]*client
	// changed is closed and replaced whenever a client connects, leaves,
	// or starts or stops blocking, so that tests wait for it instead of
	// polling.
	changed   chan struct{}
	listeners map[net.Listener]struct{}
	// loops are the event loops (Options.EventLoop), started by the first
	// Serve; nil without them.
	loops   *eventLoops
	closing bool
	conns   sync.WaitGroup
	// stop is closed when Shutdown's deadline passes: a command still
	// walking the keyspace gives up (kv.Tx.StopOn).
	stop     chan struct{}
	stopOnce sync.Once
	// scriptsCtx is cancelled with stop: a running script raises an error
	// at its next instruction, so that no script outlives the server.
	scriptsCtx  context.Context
	stopScripts context.CancelFunc
	// lastSave is LASTSAVE: the Unix time in seconds of the last SAVE,
	// BGSAVE or SHUTDOWN sync, the server's start before any.
	lastSave atomic.Int64
	// peakMemory is INFO's used_memory_peak: the most used memory INFO
	// has reported.
	peakMemory atomic.Int64
	// monitors are the clients in MONITOR; monitorN their number, read
	// without the lock by every command.
	monitorMu sync.Mutex
	monitors  map[*client]struct{}
	monitorN  atomic.Int32

	nextID  atomic.Uint64
	cfg     *config
	hub     *hub
	watches *watchRegistry
	// tracking is client-side caching (CLIENT TRACKING).
	tracking *tracker
	stats    serverStats
	// cmdStats counts calls per command and error replies per prefix.
	cmdStats commandStats
	// latency is the latency monitor (LATENCY LATEST, HISTORY, RESET).
	latency latencyMonitor
	// slowlog is the slow log (SLOWLOG).
	slowlog slowLog
	// replID is INFO's master_replid: random, fixed for the server's life.
	replID string
	// scripts compiles, caches and runs EVAL's Lua scripts.
	scripts *script.Engine
	// runs is the script running now, for SCRIPT KILL and BUSY.
	runs scriptRuns
	// acl holds the ACL users, the ACL log and the refusal counters.
	acl *aclState
}

type serverStats struct {
	connections  atomic.Int64
	commands     atomic.Int64
	rejected     atomic.Int64
	netIn        atomic.Int64
	netOut       atomic.Int64
	errorReplies atomic.Int64
}

// NewServer returns a server for opts. It installs itself as the kv
// store's observer, for keyspace notifications and WATCH.
func NewServer(opts Options) *Server {
	opts.ensureDefaults()
	s := &Server{
		opts:      opts,
		kv:        opts.KV,
		log:       opts.Logger,
		start:     opts.Now(),
		clients:   make(map[uint64]*client),
		changed:   make(chan struct{}),
		stop:      make(chan struct{}),
		monitors:  make(map[*client]struct{}),
		listeners: make(map[net.Listener]struct{}),
	}
	s.scriptsCtx, s.stopScripts = context.WithCancel(context.Background())
	s.cmds = commandTable()
	s.scripts = script.New(s.log)
	s.loadFunctions()
	s.replID = newReplID()
	s.cfg = newConfig(&opts)
	s.cfg.s = s
	s.acl = newACLState(s)
	s.acl.setRequirePass(opts.RequirePass)
	for _, p := range []string{"slowlog-log-slower-than", "slowlog-max-len"} {
		s.slowlog.setFromConfig(p, s.cfg.get(p))
	}
	s.hub = newHub()
	s.watches = newWatchRegistry()
	s.tracking = newTracker(s)
	s.kv.SetMaxStringSize(opts.Limits.MaxBulkLen)
	s.applyEviction()
	s.kv.SetObserver(observer{s})
	s.lastSave.Store(s.start.Unix())
	return s
}

// LoadACL loads the users of Options.ACLFile, when there is one.
func (s *Server) LoadACL() error {
	if s.acl.file == "" {
		return nil
	}
	return s.loadACLFile()
}

// OpenToAll reports whether a connection needs no authentication: the
// default user is on and has no password (no requirepass, no aclfile
// that gives it one).
func (s *Server) OpenToAll() bool { return s.acl.defaultAuthed() }

// Serve accepts connections on ln until Shutdown; it returns
// ErrServerClosed after Shutdown and the accept error otherwise.
func (s *Server) Serve(ln net.Listener) error {
	s.mu.Lock()
	if s.closing {
		s.mu.Unlock()
		return ErrServerClosed
	}
	s.listeners[ln] = struct{}{}
	var loopErr error
	if s.opts.EventLoop && s.loops == nil {
		s.loops, loopErr = newEventLoops(s, eventLoopCount())
		if loopErr != nil {
			s.opts.EventLoop = false
		}
	}
	s.mu.Unlock()
	if loopErr != nil {
		s.log.Warn("resp: serving connections from goroutines: no event loop", "err", loopErr)
		s.cfg.mu.Lock()
		s.cfg.vals["resp-event-loop"] = "no"
		s.cfg.mu.Unlock()
	}
	s.cfg.noteListener(ln)
	defer func() {
		s.mu.Lock()
		delete(s.listeners, ln)
		s.mu.Unlock()
	}()
	var delay time.Duration
	for {
		nc, err := ln.Accept()
		if err != nil {
			s.mu.Lock()
			closing := s.closing
			s.mu.Unlock()
			if closing {
				return ErrServerClosed
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				delay = min(max(2*delay, 5*time.Millisecond), time.Second)
				time.Sleep(delay)
				continue
			}
			return fmt.Errorf("resp: accept: %w", err)
		}
		delay = 0
		s.accept(nc)
	}
}

func (s *Server) accept(nc net.Conn) {
	s.mu.Lock()
	if s.closing {
		s.mu.Unlock()
		nc.Close()
		return
	}
	if len(s.clients) >= s.cfg.maxClients() {
		s.mu.Unlock()
		s.stats.rejected.Add(1)
		nc.Write([]byte("-ERR max number of clients reached\r\n"))
		nc.Close()
		return
	}
	c := newClient(s, nc)
	onLoop := false
	if tc, ok := nc.(*net.TCPConn); ok && s.loops != nil {
		onLoop = s.loops.attach(c, tc)
	}
	s.clients[c.id] = c
	s.changedLocked()
	s.conns.Add(1)
	s.mu.Unlock()
	s.stats.connections.Add(1)
	if onLoop {
		c.lc.start()
		return
	}
	go c.serve()
}

// Shutdown stops accepting, lets every connection finish the commands it
// is executing, flushes their replies and closes them. If ctx ends first
// the remaining connections are closed at once and ctx's error returned.
func (s *Server) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	s.closing = true
	for ln := range s.listeners {
		ln.Close()
	}
	for _, c := range s.clients {
		c.shutdown()
	}
	s.mu.Unlock()
	done := make(chan struct{})
	go func() {
		s.conns.Wait()
		s.mu.Lock()
		loops := s.loops
		s.mu.Unlock()
		if loops != nil {
			loops.stop()
		}
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		s.signalStop()
		s.mu.Lock()
		for _, c := range s.clients {
			c.nc.Close()
		}
		s.mu.Unlock()
		<-done
		return ctx.Err()
	}
}

// signalStop tells the commands still running that the server must stop:
// long walks of the keyspace give up and running scripts are cancelled.
func (s *Server) signalStop() {
	s.stopOnce.Do(func() {
		close(s.stop)
		s.stopScripts()
	})
}

func (s *Server) removeClient(c *client) {
	s.mu.Lock()
	delete(s.clients, c.id)
	s.changedLocked()
	s.mu.Unlock()
	s.conns.Done()
}

// changedLocked wakes the waiters on changed; s.mu is held.
func (s *Server) changedLocked() {
	close(s.changed)
	s.changed = make(chan struct{})
}

// Stats are the server's counters, for metrics.
type Stats struct {
	ConnectedClients     int
	PubSubClients        int
	TotalConnections     int64
	RejectedConnections  int64
	TotalCommands        int64
	ErrorReplies         int64
	NetInputBytes        int64
	NetOutputBytes       int64
	PubSubChannels       int
	PubSubPatterns       int
	WatchingClients      int
	KeyspaceNotification string // notify-keyspace-events as CONFIG GET shows it
}

// Stats returns the server's counters.
func (s *Server) Stats() Stats {
	s.mu.Lock()
	n := len(s.clients)
	s.mu.Unlock()
	ch, pat, subs := s.hub.counts()
	return Stats{
		ConnectedClients:     n,
		PubSubClients:        subs,
		TotalConnections:     s.stats.connections.Load(),
		RejectedConnections:  s.stats.rejected.Load(),
		TotalCommands:        s.stats.commands.Load(),
		ErrorReplies:         s.stats.errorReplies.Load(),
		NetInputBytes:        s.stats.netIn.Load(),
		NetOutputBytes:       s.stats.netOut.Load(),
		PubSubChannels:       ch,
		PubSubPatterns:       pat,
		WatchingClients:      s.watches.clients(),
		KeyspaceNotification: s.cfg.get("notify-keyspace-events"),
	}
}

// Info renders INFO for the given sections as Redis does ("default" when
// none); the admin API can serve the same text.
func (s *Server) Info(ctx context.Context, sections ...string) (string, error) {
	return s.info(ctx, nil, sections)
}
