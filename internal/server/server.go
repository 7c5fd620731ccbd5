package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/mayfly/mayfly/internal/admin"
	"github.com/mayfly/mayfly/internal/expiry"
	"github.com/mayfly/mayfly/internal/storage"
	"github.com/mayfly/mayfly/internal/tlsconf"
	"github.com/mayfly/mayfly/internal/wire/mongo"
)

// ReadyMessage is the message of the one log line that says every listener
// is up; its attributes name each bound address (mongo, resp, http, and
// mongo-plain and resp-plain when they are on) and the data directory.
const ReadyMessage = "mayfly ready"

// Server is one running mayfly: storage, models, expiry engine, listeners.
type Server struct {
	cfg       Config
	log       *slog.Logger
	ramLog    *mongo.RAMLog
	store     *storage.Store
	engine    *expiry.Engine
	redis     *redisSide // nil when the RESP listener is disabled
	mongo     *mongoSide // nil when the MongoDB listener is disabled
	registry  *prometheus.Registry
	frontends []*frontend
	ready     atomic.Bool
	// tls is the listeners' TLS configuration; nil serves plain text.
	tls *tlsconf.Config
	// tokens are the admin API's bearer tokens; nil without a token file.
	tokens *admin.TokenFile
	// background tracks the sweeper, the garbage collector, the purge
	// loop and the heap floor, which must stop before the storage closes.
	background sync.WaitGroup
	// idle is the sweeper's low-priority thread (nil at normal priority).
	idle *idleThread
	// stopRequested is closed by a client's request to stop the server
	// (Redis's SHUTDOWN): Run then stops as when its context ends.
	stopRequested chan struct{}
	stopOnce      sync.Once
	// console is the admin server's web console (console.go).
	console *admin.Console
	// requests is the request latency histogram (request_metrics.go).
	requests *prometheus.HistogramVec
	// repl is the membership of a replica set; nil on a standalone.
	repl *replicaSide
}

// requestStop makes Run stop gracefully, as a signal does.
func (s *Server) requestStop() {
	s.stopOnce.Do(func() { close(s.stopRequested) })
}

// frontend is one listener and the server that answers on it.
type frontend struct {
	name  string // "mongo", "resp", "http", "mongo-plain" or "resp-plain"
	addr  string
	tls   bool // the listener serves TLS
	serve func(net.Listener) error
	// shutdown stops the server and every listener it serves; nil for a
	// second listener of a server another frontend stops.
	shutdown func(context.Context) error
	ln       net.Listener
}

// New opens the storage and builds everything on it. The caller must Run
// the server, or Close it if Run is never called.
func New(cfg Config) (*Server, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	// Every component's log lines are also kept in memory for MongoDB's
	// getLog "global".
	ramLog := mongo.NewRAMLog(0)
	cfg.Logger = slog.New(ramLog.Handler(cfg.Logger.Handler()))
	var clock *manualClock
	if cfg.ManualClock {
		clock = newManualClock(time.Now())
		cfg.Now = clock.Now
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	low := cfg.BackgroundPriority == BackgroundLow
	store, err := storage.Open(storage.Options{
		Dir:                    cfg.Dir,
		Durability:             cfg.Durability,
		Logger:                 cfg.Logger,
		PurgeAfter:             cfg.PurgeAfter,
		Now:                    cfg.Now,
		LowPriorityCompactions: low,
	})
	if err != nil {
		return nil, err
	}
	s := &Server{cfg: cfg, log: cfg.Logger, ramLog: ramLog, store: store, registry: prometheus.NewRegistry(),
		stopRequested: make(chan struct{})}
	if cfg.ReplicaSet != "" {
		s.repl = newReplicaSide(s)
	}
	if cfg.TLS.Enabled() {
		if s.tls, err = tlsconf.Load(cfg.TLS); err != nil {
			s.closeStorage()
			return nil, err
		}
		s.log.Info("listeners serve TLS", "cert", cfg.TLS.CertFile, "subject", s.tls.Certificate().Subject.String(),
			"client-auth", string(s.tls.ClientAuth()), "min-version", s.tls.MinVersion())
	}
	if cfg.AdminTokenFile != "" {
		if s.tokens, err = admin.OpenTokenFile(cfg.AdminTokenFile, func(msg string) { s.log.Warn(msg) }); err != nil {
			s.closeStorage()
			return nil, err
		}
		s.log.Info("admin API requires bearer tokens", "file", cfg.AdminTokenFile, "tokens", s.tokens.Len())
	}
	ecfg := expiry.Config{Now: cfg.Now, Logger: cfg.Logger}
	if low {
		s.idle = startIdleThread(cfg.Logger)
		if s.idle != nil {
			ecfg.Idle = s.idle
		}
	}
	engine, err := expiry.New(ecfg)
	if err != nil {
		s.closeStorage()
		return nil, fmt.Errorf("expiry engine: %w", err)
	}
	if err := setParameters(engine, cfg.Parameters); err != nil {
		s.closeStorage()
		return nil, err
	}
	s.engine = engine
	s.registry.MustRegister(
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		newStorageCollector(store),
		newExpiryCollector(engine),
	)
	s.requests = newRequestHistogram()
	s.registry.MustRegister(s.requests)

	if cfg.MongoAddr != "" {
		m, err := s.openMongo()
		if err != nil {
			s.Close()
			return nil, err
		}
		s.mongo = m
		s.addFrontend("mongo", cfg.MongoAddr, m.wire.Serve, m.wire.Shutdown)
		s.addFrontend("mongo-plain", cfg.MongoPlainAddr, m.wire.Serve, nil)
	}
	if cfg.RespAddr != "" {
		r, err := s.openRedis(context.Background())
		if err != nil {
			s.Close()
			return nil, err
		}
		s.redis = r
		s.addFrontend("resp", cfg.RespAddr, r.resp.Serve, r.resp.Shutdown)
		s.addFrontend("resp-plain", cfg.RespPlainAddr, r.resp.Serve, nil)
	}

	adminSrv := admin.NewServer(admin.Options{
		Gatherer:              s.registry,
		Ready:                 s.readiness,
		Logger:                cfg.Logger,
		Tokens:                s.tokens,
		RequireAuthForMetrics: cfg.AdminRequireAuthForMetrics,
	})
	if s.mongo != nil {
		// The TTL policy and operation API (/v1/), with bearer tokens when
		// a token file is given.
		err := admin.MountPolicies(adminSrv, admin.PolicyOptions{Store: s.mongo.db, Stats: s.engine, Tokens: s.tokens, Logger: cfg.Logger})
		if err != nil {
			s.mongo.db.Close()
			s.Close()
			return nil, err
		}
	}
	if err := s.mountReplicas(adminSrv); err != nil {
		s.Close()
		return nil, err
	}
	if err := s.mountConsole(adminSrv); err != nil {
		s.Close()
		return nil, err
	}
	if clock != nil {
		s.log.Warn("manual clock: time moves only through POST /debug/clock on the admin address; for tests only")
		adminSrv.Handle("POST /debug/clock", s.clockHandler(clock))
	}
	s.addFrontend("http", cfg.HTTPAddr, adminSrv.Serve, adminSrv.Shutdown)
	return s, nil
}

func (s *Server) addFrontend(name, addr string, serve func(net.Listener) error, shutdown func(context.Context) error) {
	if addr == "" {
		return // disabled
	}
	// The plain listeners are the second listeners of a TLS server.
	tls := s.tls != nil && shutdown != nil
	s.frontends = append(s.frontends, &frontend{name: name, addr: addr, tls: tls, serve: serve, shutdown: shutdown})
}

func (s *Server) readiness() error {
	if !s.ready.Load() {
		return errors.New("not ready")
	}
	return nil
}

// Addr returns the bound address of the named listener ("mongo", "resp",
// "http", "mongo-plain", "resp-plain") once Run has started it, or "" if it
// is disabled or not started.
func (s *Server) Addr(name string) string {
	for _, f := range s.frontends {
		if f.name == name && f.ln != nil {
			return f.ln.Addr().String()
		}
	}
	return ""
}

// Run starts every listener, logs ReadyMessage, and serves until ctx is
// cancelled or a listener fails; then it shuts down gracefully and closes the
// storage. It returns the first error met.
func (s *Server) Run(ctx context.Context) error {
	for _, f := range s.frontends {
		ln, err := net.Listen("tcp", f.addr)
		if err != nil {
			s.closeListeners()
			s.closeStorage()
			return fmt.Errorf("listen for %s on %s: %w", f.name, f.addr, err)
		}
		if f.tls {
			ln = s.tls.Listen(ln, s.log)
		}
		f.ln = ln
	}

	serveErr := make(chan error, len(s.frontends)+2)
	var wg sync.WaitGroup
	background, stopBackground := context.WithCancel(context.Background())
	defer stopBackground()
	if s.repl == nil {
		s.startPrimaryWork(background, &s.background, func(err error) { serveErr <- err })
	} else if err := s.repl.start(background); err != nil {
		s.closeListeners()
		stopBackground()
		s.background.Wait()
		s.closeModels()
		s.closeStorage()
		return err
	}
	if s.idle != nil { // threads are lowered: see heapfloor.go
		s.background.Add(1)
		go func() {
			defer s.background.Done()
			runHeapFloor(background)
		}()
	}
	s.background.Add(1)
	go func() {
		defer s.background.Done()
		if err := s.store.RunPurge(background); err != nil {
			serveErr <- fmt.Errorf("physical purge: %w", err)
		}
	}()
	s.background.Add(1)
	go func() {
		defer s.background.Done()
		s.console.Run(background)
	}()
	for _, f := range s.frontends {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := f.serve(f.ln); err != nil {
				serveErr <- fmt.Errorf("%s: %w", f.name, err)
			}
		}()
	}
	s.ready.Store(true)
	attrs := []any{"dir", s.cfg.Dir, "durability", s.cfg.Durability.String()}
	for _, name := range []string{"mongo", "resp", "http"} {
		attrs = append(attrs, name, s.Addr(name))
	}
	for _, name := range []string{"mongo-plain", "resp-plain"} {
		if a := s.Addr(name); a != "" {
			attrs = append(attrs, name, a)
		}
	}
	if s.tls != nil {
		attrs = append(attrs, "tls", true)
	}
	s.log.Info(ReadyMessage, attrs...)

	var runErr error
	select {
	case <-ctx.Done():
		s.log.Info("mayfly stopping", "reason", context.Cause(ctx))
	case <-s.stopRequested:
		s.log.Info("mayfly stopping", "reason", "SHUTDOWN command")
	case runErr = <-serveErr:
		s.log.Error("mayfly stopping", "err", runErr)
	}
	s.ready.Store(false)
	err := s.shutdown(stopBackground)
	wg.Wait()
	return errors.Join(runErr, err)
}

// shutdown stops the frontends within the shutdown timeout, then closes the
// storage.
func (s *Server) shutdown(stopBackground func()) error {
	ctx, cancel := context.WithTimeout(context.Background(), s.cfg.ShutdownTimeout)
	defer cancel()
	var errs []error
	for i := len(s.frontends) - 1; i >= 0; i-- {
		f := s.frontends[i]
		if f.shutdown == nil {
			continue
		}
		if err := f.shutdown(ctx); err != nil {
			errs = append(errs, fmt.Errorf("shut down %s: %w", f.name, err))
		}
	}
	if s.repl != nil {
		if err := s.repl.close(); err != nil {
			errs = append(errs, err)
		}
	}
	stopBackground()
	s.background.Wait()
	s.closeModels()
	// Flushing the memtable makes the next start quick: nothing to replay.
	if err := s.store.Flush(); err != nil {
		errs = append(errs, err)
	}
	if err := s.closeStorage(); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// closeStorage closes the store and the sweeper's idle thread.
func (s *Server) closeStorage() error {
	if s.idle != nil {
		s.idle.Close()
	}
	return s.store.Close()
}

func (s *Server) closeListeners() {
	for _, f := range s.frontends {
		if f.ln != nil {
			f.ln.Close()
			f.ln = nil
		}
	}
}

// Close releases a server that was never Run.
func (s *Server) Close() error {
	return errors.Join(s.engine.Close(), s.closeStorage())
}

// closeModels closes the document and Redis models.
func (s *Server) closeModels() {
	if s.redis != nil {
		s.redis.kv.Close()
	}
	if s.mongo != nil {
		s.mongo.db.Close()
	}
}

// startPrimaryWork starts, under ctx and tracked by wg, the background
// work that writes on its own: the expiry sweeper and the Redis garbage
// collector. A standalone runs it for its whole life, a member of a
// replica set while it is primary. fail receives the error that stops
// either.
func (s *Server) startPrimaryWork(ctx context.Context, wg *sync.WaitGroup, fail func(error)) {
	wg.Add(1)
	go func() {
		defer wg.Done()
		if err := s.engine.Run(ctx); err != nil {
			fail(fmt.Errorf("expiry sweeper: %w", err))
		}
	}()
	if s.redis != nil {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := s.redis.kv.Run(ctx); err != nil {
				fail(fmt.Errorf("redis garbage collector: %w", err))
			}
		}()
	}
}
