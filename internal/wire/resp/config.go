package resp

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mayfly/mayfly/internal/glob"
	"github.com/mayfly/mayfly/internal/kv"
)

// config holds the CONFIG parameters: every parameter of Redis 7.0
// (redisParams), each stored as the string CONFIG GET shows. A name and
// its alias share one value. Most parameters are only stored; the ones
// mayfly acts on are read where they take effect (maxclients, timeout,
// requirepass, client-query-buffer-limit) or applied
// when set (applies).
type config struct {
	mu      sync.Mutex
	s       *Server
	vals    map[string]string      // by primary name
	entries map[string]*paramEntry // by lower-case name and alias
	applies map[string]func(c *config, value string)
	// listened holds port and tls-port once they show the port being
	// served.
	listened map[string]bool
}

// paramEntry is one name CONFIG knows: a parameter's name or its alias.
type paramEntry struct {
	name string
	spec *paramSpec
}

func newConfig(o *Options) *config {
	c := &config{vals: make(map[string]string), entries: make(map[string]*paramEntry), listened: make(map[string]bool)}
	for i := range redisParams {
		p := &redisParams[i]
		c.vals[p.name] = p.def
		c.entries[p.name] = &paramEntry{name: p.name, spec: p}
		if p.alias != "" {
			c.entries[p.alias] = &paramEntry{name: p.alias, spec: p}
		}
	}
	// What mayfly runs with, where it differs from Redis's defaults: no
	// snapshots, DEBUG always allowed, and the limits of Options.
	c.vals["save"] = ""
	c.vals["enable-debug-command"] = "yes"
	c.vals["requirepass"] = o.RequirePass
	c.vals["aclfile"] = o.ACLFile
	c.vals["maxclients"] = strconv.Itoa(o.MaxClients)
	c.vals["proto-max-bulk-len"] = strconv.FormatInt(o.Limits.MaxBulkLen, 10)
	c.vals["client-query-buffer-limit"] = strconv.FormatInt(o.QueryBufferLimit, 10)
	c.vals["databases"] = strconv.Itoa(kv.NumDBs)
	if o.EventLoop {
		c.vals["resp-event-loop"] = "yes"
	}
	c.vals["client-output-buffer-limit"] = fmt.Sprintf("normal 0 0 0 slave 268435456 67108864 60 pubsub %d 8388608 60", o.PushBufferLimit)
	if len(o.TLSParams) > 0 {
		c.vals["port"] = "0" // until a plain listener says otherwise
		for name, v := range o.TLSParams {
			c.vals[name] = v
		}
	}
	c.applies = map[string]func(*config, string){
		"notify-keyspace-events": func(c *config, v string) {
			f, _ := parseNotify(v)
			c.s.applyNotify(f)
		},
		"requirepass":             func(c *config, v string) { c.s.acl.setRequirePass(v) },
		"slowlog-log-slower-than": func(c *config, v string) { c.s.slowlog.setFromConfig("slowlog-log-slower-than", v) },
		"slowlog-max-len":         func(c *config, v string) { c.s.slowlog.setFromConfig("slowlog-max-len", v) },
		"proto-max-bulk-len": func(c *config, v string) {
			n, _ := strconv.ParseInt(v, 10, 64)
			c.s.kv.SetMaxStringSize(n)
		},
		"tracking-table-max-keys": func(c *config, v string) {
			n, _ := strconv.ParseInt(v, 10, 64)
			c.s.tracking.setMaxKeys(n)
		},
	}
	for _, name := range []string{"expired-events-stream", "expired-events-maxlen", "stream-node-max-entries"} {
		c.applies[name] = func(c *config, _ string) { c.s.applyExpiryLog() }
	}
	for _, name := range evictionParams {
		c.applies[name] = func(c *config, _ string) { c.s.applyEviction() }
	}
	return c
}

// listenerParams are the parameters that would move the listener, with
// the error Redis gives when it cannot listen as asked: mayfly serves only
// the address it was started on, so they may be set only to their value.
var listenerParams = map[string]string{
	"port":     "Unable to listen on this port. Check server logs.",
	"bind":     "Failed to bind to specified addresses.",
	"tls-port": "Unable to listen on this port. Check server logs.",
}

// tlsListener is a listener whose connections speak TLS.
type tlsListener interface{ IsTLS() bool }

// noteListener records the first plain TCP listener's port as port, the
// first TLS listener's as tls-port, and the first listener's address as
// bind ("* -::*", Redis's default, when it listens on every interface).
func (c *config) noteListener(ln net.Listener) {
	a, ok := ln.Addr().(*net.TCPAddr)
	if !ok {
		return
	}
	name := "port"
	if tl, ok := ln.(tlsListener); ok && tl.IsTLS() {
		name = "tls-port"
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.listened[name] {
		return
	}
	first := len(c.listened) == 0
	c.listened[name] = true
	c.vals[name] = strconv.Itoa(a.Port)
	if first && !a.IP.IsUnspecified() {
		c.vals["bind"] = a.IP.String()
	}
}

func (c *config) get(name string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.vals[name]
}

// aclPubsubAll reports whether acl-pubsub-default gives new users all
// channels.
func (c *config) aclPubsubAll() bool { return c.get("acl-pubsub-default") == "allchannels" }

// aclLogMaxLen is acllog-max-len.
func (c *config) aclLogMaxLen() int {
	n, _ := strconv.Atoi(c.get("acllog-max-len"))
	return n
}

func (c *config) maxClients() int {
	n, _ := strconv.Atoi(c.get("maxclients"))
	return n
}

// queryBufferLimit returns client-query-buffer-limit.
func (c *config) queryBufferLimit() int64 {
	n, _ := strconv.ParseInt(c.get("client-query-buffer-limit"), 10, 64)
	return n
}

func (c *config) limits() Limits {
	l := c.s.opts.Limits
	n, _ := strconv.ParseInt(c.get("proto-max-bulk-len"), 10, 64)
	l.MaxBulkLen = n
	return l
}

// lookup finds a parameter by name or alias, in any case.
func (c *config) lookup(name string) *paramEntry {
	return c.entries[strings.ToLower(name)]
}

// value is what CONFIG GET shows for a parameter; c.mu is held.
func (c *config) value(p *paramSpec) string {
	if p.name == "dir" {
		wd, _ := os.Getwd()
		return wd
	}
	return c.vals[p.name]
}

// getAll answers CONFIG GET: for each argument, the parameter of that
// name (keyed as the argument was first spelled), or when it holds a glob
// character ('*', '?' or '['), every name and alias it matches without
// regard to case (sorted), except hidden parameters. Each name appears once.
func (c *config) getAll(args [][]byte) [][2]string {
	c.mu.Lock()
	defer c.mu.Unlock()
	seen := map[string]bool{}
	var out [][2]string
	add := func(key string, p *paramSpec) {
		if k := strings.ToLower(key); !seen[k] {
			seen[k] = true
			out = append(out, [2]string{key, c.value(p)})
		}
	}
	for _, a := range args {
		if !bytes.ContainsAny(a, "[*?") {
			if e := c.lookup(string(a)); e != nil {
				add(string(a), e.spec)
			}
			continue
		}
		var matched []*paramEntry
		for _, e := range c.entries {
			if e.spec.flags&hidden == 0 && glob.Match(a, []byte(e.name), true) {
				matched = append(matched, e)
			}
		}
		sort.Slice(matched, func(i, j int) bool { return matched[i].name < matched[j].name })
		for _, e := range matched {
			add(e.name, e.spec)
		}
	}
	return out
}

// setMany applies CONFIG SET's name/value pairs atomically, as Redis 7
// does: first every name is checked (the first unknown, immutable,
// protected or repeated name fails the command), then every value is
// parsed, and only when all are valid do they take effect.
func (c *config) setMany(pairs [][]byte) error {
	type change struct {
		p   *paramSpec
		val string
	}
	fail := func(name, msg string) error {
		return replyErr(fmt.Sprintf("ERR CONFIG SET failed (possibly related to argument '%s') - %s", name, msg))
	}
	entries := make([]*paramEntry, 0, len(pairs)/2)
	for i := 0; i+1 < len(pairs); i += 2 {
		e := c.lookup(string(pairs[i]))
		if e == nil {
			return replyErr(fmt.Sprintf("ERR Unknown option or number of arguments for CONFIG SET - '%s'", pairs[i]))
		}
		switch {
		case e.spec.flags&immutable != 0:
			return fail(string(pairs[i]), "can't set immutable config")
		case e.spec.flags&protected != 0:
			return fail(string(pairs[i]), "can't set protected config")
		}
		for _, prev := range entries {
			if prev == e {
				return fail(string(pairs[i]), "duplicate parameter")
			}
		}
		entries = append(entries, e)
	}
	c.mu.Lock()
	changes := make([]change, 0, len(entries))
	for i, e := range entries {
		v, msg := parseValue(c, e.spec, string(pairs[2*i+1]))
		if msg != "" {
			c.mu.Unlock()
			return fail(e.name, msg)
		}
		if e.spec.name == "hz" {
			// Redis runs its timers between 1 and 500 times a second and
			// keeps hz within that range.
			n, _ := strconv.Atoi(v)
			v = strconv.Itoa(min(max(n, 1), 500))
		}
		changes = append(changes, change{e.spec, v})
	}
	for _, ch := range changes {
		if msg, fixed := listenerParams[ch.p.name]; fixed && ch.val != c.vals[ch.p.name] {
			c.mu.Unlock()
			c.s.log.Warn("resp: CONFIG SET cannot move the listener; the Redis protocol is served on --resp-addr only",
				"parameter", ch.p.name, "value", ch.val)
			return fail(ch.p.name, msg)
		}
		if _, fixed := c.s.opts.TLSParams[ch.p.name]; fixed && ch.val != c.vals[ch.p.name] {
			c.mu.Unlock()
			c.s.log.Warn("resp: CONFIG SET cannot change TLS; mayfly reads its TLS files at startup and again on SIGHUP",
				"parameter", ch.p.name, "value", ch.val)
			return fail(ch.p.name, "Unable to update TLS configuration. Check server logs.")
		}
	}
	if hook := c.s.opts.OnConfigSet; hook != nil {
		for _, ch := range changes {
			if ch.p.name == "hz" || ch.p.name == "active-expire-effort" {
				if err := hook(ch.p.name, ch.val); err != nil {
					c.mu.Unlock()
					return fail(ch.p.name, err.Error())
				}
			}
		}
	}
	for _, ch := range changes {
		c.vals[ch.p.name] = ch.val
	}
	c.mu.Unlock()
	for _, ch := range changes {
		if apply := c.applies[ch.p.name]; apply != nil {
			apply(c, ch.val)
		}
	}
	return nil
}

// Notification flags: the kv classes plus K and E.
const (
	notifyKeyspace = 1 << 16
	notifyKeyevent = 1 << 17
	notifyAll      = kv.ClassGeneric | kv.ClassString | kv.ClassList | kv.ClassSet | kv.ClassHash |
		kv.ClassZSet | kv.ClassExpired | kv.ClassEvicted | kv.ClassStream | kv.ClassModule
)

var notifyLetters = []struct {
	c    byte
	flag int
}{
	{'g', int(kv.ClassGeneric)}, {'$', int(kv.ClassString)}, {'l', int(kv.ClassList)}, {'s', int(kv.ClassSet)},
	{'h', int(kv.ClassHash)}, {'z', int(kv.ClassZSet)}, {'x', int(kv.ClassExpired)}, {'e', int(kv.ClassEvicted)},
	{'t', int(kv.ClassStream)}, {'d', int(kv.ClassModule)},
}

// parseNotify parses notify-keyspace-events.
func parseNotify(v string) (int, bool) {
	f := 0
	for i := 0; i < len(v); i++ {
		switch c := v[i]; c {
		case 'A':
			f |= int(notifyAll)
		case 'K':
			f |= notifyKeyspace
		case 'E':
			f |= notifyKeyevent
		case 'm':
			f |= int(kv.ClassKeyMiss)
		case 'n':
			f |= int(kv.ClassNew)
		default:
			found := false
			for _, l := range notifyLetters {
				if l.c == c {
					f |= l.flag
					found = true
				}
			}
			if !found {
				return 0, false
			}
		}
	}
	return f, true
}

// notifyString renders flags as CONFIG GET shows them.
func notifyString(f int) string {
	var b strings.Builder
	if f&int(notifyAll) == int(notifyAll) {
		b.WriteByte('A')
	} else {
		for _, l := range notifyLetters {
			if f&l.flag != 0 {
				b.WriteByte(l.c)
			}
		}
	}
	if f&notifyKeyspace != 0 {
		b.WriteByte('K')
	}
	if f&notifyKeyevent != 0 {
		b.WriteByte('E')
	}
	if f&int(kv.ClassKeyMiss) != 0 {
		b.WriteByte('m')
	}
	if f&int(kv.ClassNew) != 0 {
		b.WriteByte('n')
	}
	return b.String()
}

// idleTimeout returns the timeout parameter: how long a client may stay
// idle before it is closed; zero means never.
func (c *config) idleTimeout() time.Duration {
	n, _ := strconv.Atoi(c.get("timeout"))
	return time.Duration(n) * time.Second
}
