package bench

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"regexp"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// Protocol is the wire protocol a target is driven through.
type Protocol string

// The protocols bench drives.
const (
	RESP  Protocol = "resp"
	Mongo Protocol = "mongo"
)

// Target is one server reached over one protocol.
type Target struct {
	// Label names the server in reports ("mayfly", "redis", "ferretdb");
	// a RESP and a MongoDB target with the same label are the same server.
	Label    string   `json:"label"`
	Protocol Protocol `json:"protocol"`
	// Addr is host:port for RESP, a mongodb:// URI for MongoDB.
	Addr string `json:"addr"`
	// DataDir is the server's data directory, for the purge workload.
	DataDir string `json:"data_dir,omitempty"`
	// TLS, when set, is how every connection to the server is wrapped.
	TLS *tls.Config `json:"-"`
}

// dialTCP connects to addr, then runs the TLS handshake when tlsCfg is set
// (its ServerName defaults to addr's host).
func dialTCP(ctx context.Context, addr string, tlsCfg *tls.Config) (net.Conn, error) {
	d := net.Dialer{Timeout: 5 * time.Second}
	if tlsCfg == nil {
		return d.DialContext(ctx, "tcp", addr)
	}
	td := tls.Dialer{NetDialer: &d, Config: tlsCfg}
	return td.DialContext(ctx, "tcp", addr)
}

func (t Target) String() string { return t.Label + "/" + string(t.Protocol) }

var labelRE = regexp.MustCompile(`^[A-Za-z0-9_.-]+$`)

// ParseLabeled splits "label=value" into its parts; a value with no label
// (or whose part before '=' is no plain name, as in a URI with query
// parameters) returns an empty label and the whole string.
func ParseLabeled(s string) (label, value string) {
	if i := strings.IndexByte(s, '='); i > 0 && labelRE.MatchString(s[:i]) && i+1 < len(s) {
		return s[:i], s[i+1:]
	}
	return "", s
}

// ErrBadTarget reports target flags that do not name servers unambiguously.
var ErrBadTarget = errors.New("bench: bad target")

// ParseTargets builds the targets from the repeated --resp-addr, --mongo-uri
// and --data-dir values (each "label=value" or bare). A bare address takes
// itself as label. A bare data directory is allowed only when the targets
// name exactly one server.
func ParseTargets(respAddrs, mongoURIs, dataDirs []string) ([]Target, error) {
	var ts []Target
	seen := map[string]bool{}
	add := func(p Protocol, raw string) error {
		label, v := ParseLabeled(raw)
		if label == "" {
			label = v
		}
		if v == "" {
			return fmt.Errorf("%w: empty %s address", ErrBadTarget, p)
		}
		k := label + "/" + string(p)
		if seen[k] {
			return fmt.Errorf("%w: %s named twice", ErrBadTarget, k)
		}
		seen[k] = true
		ts = append(ts, Target{Label: label, Protocol: p, Addr: v})
		return nil
	}
	for _, a := range respAddrs {
		if err := add(RESP, a); err != nil {
			return nil, err
		}
	}
	for _, u := range mongoURIs {
		if err := add(Mongo, u); err != nil {
			return nil, err
		}
	}
	labels := map[string]bool{}
	for _, t := range ts {
		labels[t.Label] = true
	}
	for _, d := range dataDirs {
		label, dir := ParseLabeled(d)
		if label == "" {
			if len(labels) != 1 {
				return nil, fmt.Errorf("%w: --data-dir %q names no server; write label=DIR", ErrBadTarget, d)
			}
			for l := range labels {
				label = l
			}
		}
		if !labels[label] {
			return nil, fmt.Errorf("%w: --data-dir for %q, which is no target", ErrBadTarget, label)
		}
		for i := range ts {
			if ts[i].Label == label {
				ts[i].DataDir = dir
			}
		}
	}
	return ts, nil
}

// conn holds the client of one target for the whole bench.
type conn struct {
	Target
	rdb   *redis.Client
	mongo *mongo.Client
	db    int
}

// respClient opens a go-redis client that sends nothing but the commands
// it is given: RESP2, no CLIENT SETINFO, no maintenance notifications.
func respClient(addr string, tlsCfg *tls.Config, db, pool int) *redis.Client {
	return redis.NewClient(&redis.Options{
		Addr:                     addr,
		TLSConfig:                tlsCfg,
		DB:                       db,
		Protocol:                 2,
		DisableIdentity:          true,
		PoolSize:                 pool,
		MinIdleConns:             0,
		DialTimeout:              5 * time.Second,
		ReadTimeout:              30 * time.Second,
		WriteTimeout:             30 * time.Second,
		MaintNotificationsConfig: &maintnotifications.Config{Mode: maintnotifications.ModeDisabled},
	})
}

func dial(ctx context.Context, t Target, db, pool int) (*conn, error) {
	c := &conn{Target: t, db: db}
	switch t.Protocol {
	case RESP:
		c.rdb = respClient(t.Addr, t.TLS, db, pool)
		if err := c.rdb.Ping(ctx).Err(); err != nil {
			_ = c.rdb.Close()
			return nil, fmt.Errorf("ping %s: %w", t, err)
		}
	case Mongo:
		cl, err := mongoClient(ctx, t, pool)
		if err != nil {
			return nil, err
		}
		c.mongo = cl
	default:
		return nil, fmt.Errorf("%w: unknown protocol %q", ErrBadTarget, t.Protocol)
	}
	return c, nil
}

// mongoClient connects to t with at most pool connections and pings it.
func mongoClient(ctx context.Context, t Target, pool int) (*mongo.Client, error) {
	opts := options.Client().ApplyURI(t.Addr).SetMaxPoolSize(uint64(pool)).SetTimeout(60 * time.Second)
	if t.TLS != nil {
		opts.SetTLSConfig(t.TLS)
	}
	cl, err := mongo.Connect(opts)
	if err != nil {
		return nil, fmt.Errorf("connect %s: %w", t, err)
	}
	if err := cl.Ping(ctx, nil); err != nil {
		_ = cl.Disconnect(context.WithoutCancel(ctx))
		return nil, fmt.Errorf("ping %s: %w", t, err)
	}
	return cl, nil
}

func (c *conn) close(ctx context.Context) error {
	if c.rdb != nil {
		return c.rdb.Close()
	}
	if c.mongo != nil {
		return c.mongo.Disconnect(ctx)
	}
	return nil
}
