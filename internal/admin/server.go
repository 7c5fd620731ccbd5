package admin

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Options configure the admin HTTP server.
type Options struct {
	// Gatherer is served on /metrics.
	Gatherer prometheus.Gatherer
	// Ready reports whether the server accepts clients; /readyz answers 503
	// until it returns nil.
	Ready func() error
	// Logger receives request errors.
	Logger *slog.Logger
	// Tokens, when set, guard the profiler (/debug/pprof/): any of its
	// tokens may read it.
	Tokens *TokenFile
	// RequireAuthForMetrics makes /metrics, /healthz and /readyz need one
	// of Tokens too; without it they answer everyone.
	RequireAuthForMetrics bool
}

// Server is the admin HTTP server.
type Server struct {
	http *http.Server
	mux  *http.ServeMux
}

// NewServer returns an admin server with the probes and /metrics.
func NewServer(opts Options) *Server {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	mux := http.NewServeMux()
	probe := func(h http.Handler) http.Handler {
		if opts.RequireAuthForMetrics {
			return opts.Tokens.requireAny(h)
		}
		return h
	}
	mux.Handle("GET /healthz", probe(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprintln(w, "ok")
	})))
	mux.Handle("GET /readyz", probe(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		if opts.Ready != nil {
			if err := opts.Ready(); err != nil {
				w.WriteHeader(http.StatusServiceUnavailable)
				fmt.Fprintln(w, err)
				return
			}
		}
		fmt.Fprintln(w, "ready")
	})))
	if opts.Gatherer != nil {
		mux.Handle("GET /metrics", probe(promhttp.HandlerFor(opts.Gatherer, promhttp.HandlerOpts{
			ErrorLog: slog.NewLogLogger(opts.Logger.Handler(), slog.LevelError),
		})))
	}
	// The Go profiler, for finding where a slow server spends its time;
	// it shows the command line and memory, so tokens guard it.
	mux.Handle("GET /debug/pprof/", opts.Tokens.requireAny(http.HandlerFunc(pprof.Index)))
	mux.Handle("GET /debug/pprof/cmdline", opts.Tokens.requireAny(http.HandlerFunc(pprof.Cmdline)))
	mux.Handle("GET /debug/pprof/profile", opts.Tokens.requireAny(http.HandlerFunc(pprof.Profile)))
	mux.Handle("GET /debug/pprof/symbol", opts.Tokens.requireAny(http.HandlerFunc(pprof.Symbol)))
	mux.Handle("GET /debug/pprof/trace", opts.Tokens.requireAny(http.HandlerFunc(pprof.Trace)))
	return &Server{
		mux: mux,
		http: &http.Server{
			Handler:           mux,
			ReadHeaderTimeout: 10 * time.Second,
			ErrorLog:          slog.NewLogLogger(opts.Logger.Handler(), slog.LevelWarn),
		},
	}
}

// Handle registers an extra handler (for the /v1/ API).
func (s *Server) Handle(pattern string, h http.Handler) { s.mux.Handle(pattern, h) }

// Serve answers requests on ln until Shutdown.
func (s *Server) Serve(ln net.Listener) error {
	if err := s.http.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("admin: serve: %w", err)
	}
	return nil
}

// Shutdown stops accepting requests and waits for those in flight, until ctx
// is done.
func (s *Server) Shutdown(ctx context.Context) error {
	if err := s.http.Shutdown(ctx); err != nil {
		return fmt.Errorf("admin: shutdown: %w", err)
	}
	return nil
}
