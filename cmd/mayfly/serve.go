package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/mayfly/mayfly/internal/server"
	"github.com/mayfly/mayfly/internal/tlsconf"
)

func newServeCommand() *cobra.Command {
	def := server.DefaultConfig()
	var (
		cfg        = def
		durability string
		background string
		visibility string
		logLevel   string
		logFormat  string
		configFile string
		clientAuth string
	)
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run the mayfly server",
		Long: `Run the mayfly server: the MongoDB wire protocol, the Redis protocol and the admin
HTTP API (/healthz, /readyz, /metrics) on one data directory.

An empty address disables a listener; port 0 picks a free port. Once every
listener is up, one log line with msg="` + server.ReadyMessage + `" names every bound address.
SIGINT or SIGTERM stops gracefully; a second signal exits at once.

With --tls-cert-file the --mongo-addr, --resp-addr and --http-addr listeners
serve TLS only; --mongo-plain-addr and --resp-plain-addr add plain-text
listeners beside them. SIGHUP reads the TLS files and the admin token file
again: new connections see them, open ones keep working, and a file that
fails to load leaves the one before in force.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if configFile != "" {
				if err := applyConfigFile(configFile, cmd.Flags()); err != nil {
					return err
				}
			}
			d, err := server.ParseDurability(durability)
			if err != nil {
				return fmt.Errorf("--durability: %w", err)
			}
			cfg.Durability = d
			if cfg.TLS.ClientAuth, err = tlsconf.ParseClientAuth(clientAuth); err != nil {
				return fmt.Errorf("--tls-client-auth: %w", err)
			}
			if cfg.BackgroundPriority, err = server.ParseBackgroundPriority(background); err != nil {
				return fmt.Errorf("--background-priority: %w", err)
			}
			if cfg.Visibility, err = server.ParseVisibility(visibility); err != nil {
				return fmt.Errorf("--expiry-visibility: %w", err)
			}
			logger, err := newLogger(cmd.ErrOrStderr(), logLevel, logFormat)
			if err != nil {
				return err
			}
			cfg.Logger = logger
			cfg.Argv = os.Args
			return serve(cfg)
		},
	}
	f := cmd.Flags()
	f.StringVar(&configFile, "config", "", "read settings from `FILE` (lines of 'name = value', names as the flags); flags override it")
	f.StringVar(&cfg.Dir, "dir", def.Dir, "data directory")
	f.StringVar(&cfg.MongoAddr, "mongo-addr", def.MongoAddr, "MongoDB wire protocol listen address (empty disables)")
	f.StringVar(&cfg.RespAddr, "resp-addr", def.RespAddr, "Redis protocol listen address (empty disables)")
	f.StringVar(&cfg.HTTPAddr, "http-addr", def.HTTPAddr, "admin HTTP and /metrics listen address (empty disables)")
	f.StringVar(&cfg.MongoPlainAddr, "mongo-plain-addr", "", "with TLS on, an extra MongoDB listen address that serves plain text (empty: none)")
	f.StringVar(&cfg.RespPlainAddr, "resp-plain-addr", "", "with TLS on, an extra Redis listen address that serves plain text, as Redis's port beside tls-port (empty: none)")
	f.StringVar(&cfg.TLS.CertFile, "tls-cert-file", "", "serve TLS on every listener with the certificate chain of PEM `FILE` (leaf first)")
	f.StringVar(&cfg.TLS.KeyFile, "tls-key-file", "", "PEM `FILE` of the certificate's private key (default: the key is in --tls-cert-file)")
	f.StringVar(&cfg.TLS.CAFile, "tls-ca-file", "", "PEM `FILE` of the authorities client certificates are verified against")
	f.StringVar(&clientAuth, "tls-client-auth", string(tlsconf.ClientAuthNone), "none: ask clients for no certificate; optional: verify one if given; required: refuse clients without a certificate the --tls-ca-file authorities signed")
	f.StringVar(&cfg.TLS.MinVersion, "tls-min-version", "1.2", "lowest TLS version accepted: 1.2 or 1.3")
	f.DurationVar(&cfg.TLS.HandshakeTimeout, "tls-handshake-timeout", tlsconf.DefaultHandshakeTimeout, "how long a client may take to complete the TLS handshake; past it (or on plain text) its connection is closed")
	f.StringVar(&durability, "durability", "group", "sync: fsync before acknowledging each write; group: fsync at least every 100 ms")
	f.StringVar(&background, "background-priority", string(def.BackgroundPriority), "low: the expiry sweeper and compactions run at the lowest CPU priority, so requests preempt them (Linux; raises GOMAXPROCS by 2 unless GOMAXPROCS is set); normal: at the priority of requests")
	f.StringVar(&visibility, "expiry-visibility", "strict", "strict: expired documents are hidden at once; lazy: visible until deleted, as MongoDB does")
	f.StringArrayVar(&cfg.Parameters, "set-parameter", nil, "set a server parameter at startup, as `name=value` (repeatable; e.g. ttlMonitorSleepSecs=1)")
	f.StringArrayVar(&cfg.RespConfig, "resp-config", nil, "set a Redis CONFIG parameter at startup, as `name=value` (repeatable; e.g. maxmemory=100mb)")
	f.StringVar(&cfg.AdminTokenFile, "admin-token-file", "", "require bearer tokens on the admin /v1/ API (TTL policies, operations), read from `FILE`: lines of 'TOKEN PERMISSION[,PERMISSION...]' or 'TOKEN *'")
	f.BoolVar(&cfg.AdminRequireAuthForMetrics, "admin-require-auth-for-metrics", false, "/metrics, /healthz and /readyz also require a bearer token of --admin-token-file (any of them)")
	f.BoolVar(&cfg.ManualClock, "manual-clock", false, "for tests only: the clock moves only when POST /debug/clock?advance=DURATION on the admin address says so")
	f.DurationVar(&cfg.ShutdownTimeout, "shutdown-timeout", def.ShutdownTimeout, "how long in-flight requests may finish after a stop signal")
	f.DurationVar(&cfg.PurgeAfter, "purge-after", def.PurgeAfter, "bound on how long the bytes of a deleted item stay in any file of the data directory")
	f.DurationVar(&cfg.FrameTimeout, "frame-timeout", def.FrameTimeout, "on both protocols, how long a client may take to send the rest of a request once its first byte arrived, and to take each 4 MiB of a reply; 0 disables (idle connections and blocked commands are never affected)")
	f.DurationVar(&cfg.EventsRetention, "events-retention", def.EventsRetention, "how long the change log that MongoDB change streams read keeps its records; a resume token older than that gets ChangeStreamHistoryLost")
	f.Int64Var(&cfg.EventsMaxBytes, "events-max-bytes", def.EventsMaxBytes, "bound on the change log's size in bytes: past it the oldest records are trimmed")
	f.BoolVar(&cfg.ChangeStreams, "change-streams", false, "keep the durable change log MongoDB change streams read; it costs inserts about a sixth again their CPU time, and keeps the content of changes for a quarter of --purge-after (off: watch answers 40573 as on a standalone)")
	f.BoolVar(&cfg.MongoAuth, "auth", false, "MongoDB access control, as mongod --auth: clients authenticate (SCRAM-SHA-256, SCRAM-SHA-1) as users of admin.system.users and run only what their roles grant; with no user yet, a client on a loopback address may create the first one in admin; the Redis listener must then need a password too (requirepass or --resp-aclfile)")
	f.IntVar(&cfg.MongoMaxConnections, "mongo-max-connections", def.MongoMaxConnections, "most MongoDB connections served at once (MongoDB's net.maxIncomingConnections); past it a new connection is closed")
	f.BoolVar(&cfg.RespEventLoop, "resp-event-loop", def.RespEventLoop, "serve plain Redis connections from one epoll event loop per core instead of a goroutine each (Linux; TLS connections keep their goroutine; CONFIG GET resp-event-loop)")
	f.IntVar(&cfg.RespMaxClients, "resp-max-clients", def.RespMaxClients, "Redis maxclients at startup: past it a new connection gets 'ERR max number of clients reached' (CONFIG SET maxclients changes it)")
	f.StringVar(&cfg.RespACLFile, "resp-aclfile", "", "Redis aclfile: ACL users read at startup and by ACL LOAD, written by ACL SAVE (`FILE` of 'user NAME RULE...' lines)")
	f.StringVar(&cfg.ReplicaSet, "replica-set", "", "make this server a member of the replica set `NAME` (MongoDB's setName), replicated by raft; empty: a standalone")
	f.StringVar(&cfg.RaftAddr, "raft-addr", "", "with --replica-set, this member's raft address `host:port`: its identity in the set, where the other members reach it")
	f.StringVar(&cfg.RaftBindAddr, "raft-bind-addr", "", "with --replica-set, the `host:port` to listen on for raft when it is not --raft-addr (the others reach this member at --raft-addr through a proxy or NAT; default: --raft-addr)")
	f.StringSliceVar(&cfg.Peers, "peers", nil, "with --replica-set, the raft addresses of the members the set starts with, this one included, comma-separated; read only by a member's first start (default: this member alone)")
	f.StringVar(&cfg.AdvertiseMongoAddr, "advertise-mongo-addr", "", "with --replica-set, the MongoDB address the other members list for this one (hello's hosts; default: the bound --mongo-addr)")
	f.StringVar(&cfg.AdvertiseRespAddr, "advertise-resp-addr", "", "with --replica-set, the Redis address the other members list for this one (ROLE, INFO replication; default: the bound --resp-addr)")
	f.StringVar(&logLevel, "log-level", "info", "debug, info, warn or error")
	f.StringVar(&logFormat, "log-format", "text", "text or json")
	return cmd
}

func newLogger(w io.Writer, level, format string) (*slog.Logger, error) {
	lvl, err := server.ParseLogLevel(level)
	if err != nil {
		return nil, fmt.Errorf("--log-level: %w", err)
	}
	opts := &slog.HandlerOptions{Level: lvl}
	switch format {
	case "text":
		return slog.New(slog.NewTextHandler(w, opts)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, opts)), nil
	default:
		return nil, fmt.Errorf("--log-format: unknown format %q (want text or json)", format)
	}
}

// serve runs the server until the first SIGINT or SIGTERM, then stops it
// gracefully; a second signal exits at once. SIGHUP reloads the TLS and
// admin token files.
func serve(cfg server.Config) error {
	srv, err := server.New(cfg)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	defer signal.Stop(sigs)
	go func() {
		sig := <-sigs
		cancel(fmt.Errorf("signal %s", sig))
		sig = <-sigs
		cfg.Logger.Error("second signal: exiting at once", "signal", sig.String())
		os.Exit(130)
	}()
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	go func() {
		for range hup {
			srv.Reload() // logs what it loaded or kept
		}
	}()
	start := time.Now()
	err = srv.Run(ctx)
	if err != nil && !errors.Is(err, context.Canceled) {
		return err
	}
	cfg.Logger.Info("mayfly stopped", "uptime", time.Since(start).Round(time.Millisecond).String())
	return nil
}
