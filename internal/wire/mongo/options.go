package mongo

import (
	"errors"
	"fmt"
	"log/slog"
	"math"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb"
)

// Options configure a Server.
type Options struct {
	// DB is the document database the commands run on. Required.
	DB *docdb.Engine
	// ReplicaSet, when set, is the replica set this server is a member of:
	// hello and the replSet commands describe it, and writes are refused
	// on a secondary. Nil is a standalone.
	ReplicaSet ReplicaSet
	// Logger receives connection and command errors; nil means
	// slog.Default(). Everything the Server logs is also kept in its RAM log
	// for getLog.
	Logger *slog.Logger
	// Now returns the current time; nil means time.Now. hello's localTime,
	// serverStatus, uptime and the cursor idle timeout use it.
	Now func() time.Time
	// Parameters are the server parameters getParameter and setParameter
	// reach, in addition to the built-in featureCompatibilityVersion. Names
	// must be unique.
	Parameters []Parameter
	// Status adds sections to serverStatus, such as metrics.ttl.
	Status []StatusSection
	// RAMLog, when set, is the log getLog "global" reports; give the same
	// RAMLog to the process's logger (RAMLog.Handler) to see every
	// component's lines. Nil means a RAM log of this Server's own lines.
	RAMLog *RAMLog
	// StartupWarnings are the lines getLog "startupWarnings" reports, which
	// mongosh prints when it connects.
	StartupWarnings []string
	// CursorTimeout is how long an idle cursor lives; zero means 10
	// minutes, MongoDB's cursorTimeoutMillis.
	CursorTimeout time.Duration
	// MaxConnections is the most client connections served at once
	// (MongoDB's net.maxIncomingConnections); zero means 1,000,000, as in
	// MongoDB. Past it a new connection is closed at once and the refusal
	// logged, as MongoDB does; serverStatus connections.available counts
	// down to it.
	MaxConnections int
	// FrameTimeout bounds how long a client may take to send the rest of a
	// message once its first byte arrived, and to take a reply; past it
	// the connection is closed. Idle connections between messages are not
	// affected: they stay open, as in MongoDB. Zero means
	// DefaultFrameTimeout; negative means no limit.
	FrameTimeout time.Duration
	// ObserveLatency, when set, receives the time each command took (the
	// expiry engine's ObserveForeground, so the sweeper backs off when
	// client latency rises).
	ObserveLatency func(time.Duration)
	// ObserveCommand, when set, receives each known command's name and the
	// time it took (the server's request latency metric).
	ObserveCommand func(name string, d time.Duration)
	// Auth turns access control on (mongod's --auth): every command but
	// the few MongoDB serves before authentication needs an authenticated
	// user holding its privileges, except the localhost exception (a
	// loopback client may create the first user in admin). Users and
	// roles are kept in admin.system.users and admin.system.roles either
	// way; without Auth nothing is checked.
	Auth bool
	// CmdLineOpts answers getCmdLineOpts: argv and parsed, as the process
	// was started. Nil reports an empty argv and parsed.
	CmdLineOpts *CmdLineOpts
	// DBPath is the data directory: dbStats reports the space of its file
	// system (fsUsedSize, fsTotalSize). Empty leaves them out.
	DBPath string
	// TestCommands serves MongoDB's test-only commands (mongod's
	// enableTestCommands), configureFailPoint among them. Never on in
	// production.
	TestCommands bool
}

// CmdLineOpts is the process's command line, for getCmdLineOpts.
type CmdLineOpts struct {
	// Argv is the command line as given.
	Argv []string
	// Parsed holds the effective settings, as MongoDB's nested document of
	// configuration names (for example {net: {bindIp, port}, storage:
	// {dbPath}}).
	Parsed bson.D
}

// Parameter is one server parameter that getParameter reads and, when Set
// is given, setParameter changes.
type Parameter struct {
	// Name is the parameter's name, for example "ttlMonitorSleepSecs".
	Name string
	// Get returns the current value, a BSON-encodable Go value: bool,
	// int32, int64, float64, string or bson.D.
	Get func() any
	// Set changes the value. v is the value the client sent: bool, int32,
	// int64, float64 (a Decimal128 converted to float64), string, nil for
	// null and undefined, or the bson package's type for any other BSON
	// type. An error that is a *mongoerr.Error is reported as is; any other
	// error is reported as BadValue with the error's text. Nil means the
	// parameter cannot be changed at runtime.
	Set func(v any) error
	// StartupOnly says whether the parameter can only be set at startup
	// (getParameter's settableAtStartup and settableAtRuntime).
	StartupOnly bool
}

// StatusSection is one section of serverStatus supplied by another
// component.
type StatusSection struct {
	// Path is the dotted place of the section in the reply: "metrics.ttl"
	// puts it under metrics, "batchedDeletes" at the top level.
	Path string
	// Value returns the section's current content.
	Value func() bson.D
}

// DefaultFrameTimeout is the frame timeout when Options.FrameTimeout is
// zero.
const DefaultFrameTimeout = 60 * time.Second

// EnsureDefaults fills in the zero fields with their defaults.
func (o *Options) EnsureDefaults() {
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.CursorTimeout == 0 {
		o.CursorTimeout = 10 * time.Minute
	}
	if o.MaxConnections == 0 {
		o.MaxConnections = 1_000_000
	}
	if o.FrameTimeout == 0 {
		o.FrameTimeout = DefaultFrameTimeout
	}
}

// Validate reports the first invalid option.
func (o *Options) Validate() error {
	if o.DB == nil {
		return errors.New("mongo: no document database given")
	}
	if o.CursorTimeout < 0 {
		return errors.New("mongo: negative cursor timeout")
	}
	if o.MaxConnections < 0 || o.MaxConnections > math.MaxInt32 {
		return fmt.Errorf("mongo: connection limit %d is out of range [1, %d]", o.MaxConnections, math.MaxInt32)
	}
	seen := map[string]bool{"featureCompatibilityVersion": true}
	for _, p := range o.Parameters {
		if p.Name == "" || p.Get == nil {
			return errors.New("mongo: a parameter needs a name and a Get function")
		}
		if seen[p.Name] {
			return errors.New("mongo: duplicate parameter " + p.Name)
		}
		seen[p.Name] = true
	}
	for _, s := range o.Status {
		if s.Path == "" || s.Value == nil {
			return errors.New("mongo: a status section needs a path and a Value function")
		}
	}
	return nil
}
