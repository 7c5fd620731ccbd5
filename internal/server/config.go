package server

import (
	"fmt"
	"log/slog"
	"math"
	"strings"
	"time"

	"github.com/mayfly/mayfly/internal/docdb"
	"github.com/mayfly/mayfly/internal/docdb/events"
	"github.com/mayfly/mayfly/internal/storage"
	"github.com/mayfly/mayfly/internal/tlsconf"
)

// Config is everything `mayfly serve` can be told. Each field has a flag of
// the same name in kebab case, and the config file uses the same names.
type Config struct {
	// Dir is the data directory.
	Dir string
	// MongoAddr, RespAddr and HTTPAddr are the listen addresses of the
	// MongoDB wire protocol, RESP and the admin HTTP API. An empty address
	// disables that listener; port 0 picks a free port.
	MongoAddr string
	RespAddr  string
	HTTPAddr  string
	// TLS, once it names a certificate, makes the MongoAddr, RespAddr and
	// HTTPAddr listeners serve TLS only.
	TLS tlsconf.Options
	// MongoPlainAddr and RespPlainAddr, with TLS on, are extra listeners
	// that serve the same protocol in plain text (as Redis's port beside
	// tls-port); empty means none.
	MongoPlainAddr string
	RespPlainAddr  string
	// Durability is the storage durability mode.
	Durability storage.Durability
	// Visibility says whether expired documents are hidden at once (strict,
	// the default) or returned until deleted, as MongoDB does (lazy).
	Visibility docdb.Visibility
	// Parameters are server parameters set at startup, as "name=value"
	// (mongod's --setParameter): the expiry engine's ttlMonitorSleepSecs,
	// ttlIndexDeleteTargetDocs and the others getParameter lists.
	Parameters []string
	// EventsRetention and EventsMaxBytes bound the change log that change
	// streams read: records older than EventsRetention, and the oldest
	// records while it holds more than EventsMaxBytes, are trimmed. Zero
	// means the defaults of internal/docdb/events.
	EventsRetention time.Duration
	EventsMaxBytes  int64
	// ChangeStreams turns the change log on; off, nothing is logged and
	// change streams answer as on a MongoDB standalone. The log keeps the
	// content of changes for a quarter of PurgeAfter, so the bound covers
	// its files too.
	ChangeStreams bool
	// RespConfig are Redis CONFIG parameters set at startup, as
	// "name=value" (maxmemory=100mb, maxmemory-policy=allkeys-lru), checked
	// and applied as CONFIG SET does.
	RespConfig []string
	// Argv is the command line the server was started with, for MongoDB's
	// getCmdLineOpts.
	Argv []string
	// ShutdownTimeout bounds how long in-flight requests may run after a
	// stop signal.
	ShutdownTimeout time.Duration
	// PurgeAfter bounds how long the bytes of a deleted item stay in any
	// file of the data directory; zero means storage.DefaultPurgeAfter.
	PurgeAfter time.Duration
	// Logger receives the server's logs.
	Logger *slog.Logger
	// Now is the clock; nil means time.Now. Tests inject their own.
	Now func() time.Time
	// AdminTokenFile, when set, makes the admin /v1/ API require bearer
	// tokens, read from this file (admin.Tokens documents the format).
	AdminTokenFile string
	// AdminRequireAuthForMetrics makes /metrics and the probes require a
	// bearer token from AdminTokenFile too (any of them).
	AdminRequireAuthForMetrics bool
	// ManualClock, for black-box tests only, replaces the clock with one
	// that starts at the real time and moves only when the admin endpoint
	// POST /debug/clock?advance=DURATION says so.
	ManualClock bool
	// FrameTimeout bounds, on both protocols, how long a client may take to
	// send the rest of a request once its first byte arrived, and to take
	// a reply; zero means no limit. Idle connections and blocked commands
	// are not affected.
	FrameTimeout time.Duration
	// MongoAuth turns on MongoDB access control (mongod's --auth): clients
	// authenticate with SCRAM as users of admin.system.users and may run
	// only what their roles grant.
	MongoAuth bool
	// MongoMaxConnections is MongoDB's net.maxIncomingConnections: the most
	// MongoDB clients served at once.
	MongoMaxConnections int
	// RespEventLoop serves plain Redis connections from one epoll loop per
	// core instead of a goroutine each (resp.Options.EventLoop).
	RespEventLoop bool
	// RespMaxClients is the initial Redis maxclients (CONFIG SET maxclients
	// changes it at run time).
	RespMaxClients int
	// RespACLFile is the Redis aclfile: the ACL users loaded at startup and
	// by ACL LOAD, written by ACL SAVE; empty means none.
	RespACLFile string
	// BackgroundPriority is the CPU priority of the expiry sweeper's batch
	// preparation and of compactions (background.go).
	BackgroundPriority BackgroundPriority
	// ReplicaSet, when not empty, makes the server a member of the replica
	// set of that name (replica.go); empty is a standalone.
	ReplicaSet string
	// RaftAddr is this member's raft address, host:port: its identity in
	// the set and where the other members reach it.
	RaftAddr string
	// RaftBindAddr, when not empty, is where this member listens for raft
	// instead of RaftAddr: the address the others dial then reaches it
	// through a proxy or a NAT.
	RaftBindAddr string
	// Peers are the raft addresses of the members the set starts with,
	// this one included; only the first start of a member reads them. None
	// is a one-member set.
	Peers []string
	// AdvertiseMongoAddr and AdvertiseRespAddr are the client addresses
	// this member gives the others to list (hello's hosts, ROLE); empty
	// means the bound address.
	AdvertiseMongoAddr string
	AdvertiseRespAddr  string
}

// DefaultConfig returns what a new user gets from `mayfly serve` with no
// flags.
func DefaultConfig() Config {
	return Config{
		Dir:             "./mayfly-data",
		MongoAddr:       "127.0.0.1:27017",
		RespAddr:        "127.0.0.1:6379",
		HTTPAddr:        "127.0.0.1:9390",
		Durability:      storage.DurabilityGroup,
		ShutdownTimeout: 10 * time.Second,
		PurgeAfter:      storage.DefaultPurgeAfter,
		FrameTimeout:    60 * time.Second,
		EventsRetention: events.DefaultRetention,
		EventsMaxBytes:  events.DefaultMaxBytes,
		// MongoDB's and Redis's defaults.
		MongoMaxConnections: 1_000_000,
		RespMaxClients:      10_000,
		BackgroundPriority:  BackgroundLow,
	}
}

// Validate reports the first invalid setting.
func (c *Config) Validate() error {
	if c.Dir == "" {
		return fmt.Errorf("no data directory: --dir must not be empty")
	}
	if c.ShutdownTimeout <= 0 {
		return fmt.Errorf("shutdown timeout must be positive, got %s", c.ShutdownTimeout)
	}
	if c.PurgeAfter < 0 {
		return fmt.Errorf("purge bound must not be negative, got %s", c.PurgeAfter)
	}
	if c.FrameTimeout < 0 {
		return fmt.Errorf("frame timeout must not be negative, got %s", c.FrameTimeout)
	}
	if c.MongoMaxConnections < 1 || c.MongoMaxConnections > math.MaxInt32 {
		return fmt.Errorf("mongo max connections must be between 1 and %d, got %d", math.MaxInt32, c.MongoMaxConnections)
	}
	if err := c.TLS.Validate(); err != nil {
		return err
	}
	if !c.TLS.Enabled() && (c.MongoPlainAddr != "" || c.RespPlainAddr != "") {
		return fmt.Errorf("--mongo-plain-addr and --resp-plain-addr need --tls-cert-file: without TLS --mongo-addr and --resp-addr serve plain text")
	}
	if c.MongoPlainAddr != "" && c.MongoAddr == "" || c.RespPlainAddr != "" && c.RespAddr == "" {
		return fmt.Errorf("a plain listener needs its protocol's TLS listener: --mongo-plain-addr needs --mongo-addr, --resp-plain-addr --resp-addr")
	}
	if c.AdminRequireAuthForMetrics && c.AdminTokenFile == "" {
		return fmt.Errorf("--admin-require-auth-for-metrics needs --admin-token-file")
	}
	if _, err := ParseBackgroundPriority(string(c.BackgroundPriority)); err != nil {
		return err
	}
	if c.RespMaxClients < 1 || c.RespMaxClients > math.MaxUint32 {
		return fmt.Errorf("resp max clients must be between 1 and %d, got %d", uint32(math.MaxUint32), c.RespMaxClients)
	}
	return c.validateReplica()
}

// ParseLogLevel parses debug, info, warn or error.
func ParseLogLevel(s string) (slog.Level, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(strings.ToUpper(s))); err != nil {
		return 0, fmt.Errorf("unknown log level %q (want debug, info, warn or error)", s)
	}
	return l, nil
}

// ParseDurability parses the --durability flag: sync or group.
func ParseDurability(s string) (storage.Durability, error) { return storage.ParseDurability(s) }

// ParseVisibility parses the --expiry-visibility flag: strict or lazy.
func ParseVisibility(s string) (docdb.Visibility, error) {
	switch s {
	case "strict", "":
		return docdb.VisibilityStrict, nil
	case "lazy":
		return docdb.VisibilityLazy, nil
	default:
		return 0, fmt.Errorf("unknown expiry visibility %q (want strict or lazy)", s)
	}
}
