package resp

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mayfly/mayfly/internal/glob"
	"github.com/mayfly/mayfly/internal/kv"
)

// config holds the CONFIG parameters. Each parameter has a getter and a
// setter; setters validate and apply.
type config struct {
	mu     sync.Mutex
	s      *Server
	vals   map[string]string
	params map[string]*param
}

type param struct {
	name      string
	immutable bool
	// set validates value and returns its canonical form, or an error
	// message (without the CONFIG SET prefix).
	set func(c *config, value string) (string, string)
	// apply makes a validated value take effect.
	apply func(c *config, value string) error
}

func newConfig(o *Options) *config {
	c := &config{vals: make(map[string]string), params: make(map[string]*param)}
	add := func(p *param, initial string) {
		c.params[p.name] = p
		c.vals[p.name] = initial
	}
	add(&param{name: "notify-keyspace-events", set: func(_ *config, v string) (string, string) {
		f, ok := parseNotify(v)
		if !ok {
			return "", "Invalid event class character. Use 'Ag$lshzxeKEtmdn'."
		}
		return notifyString(f), ""
	}, apply: func(c *config, v string) error {
		f, _ := parseNotify(v)
		c.s.applyNotify(f)
		return nil
	}}, "")
	add(&param{name: "requirepass", set: func(_ *config, v string) (string, string) { return v, "" }}, o.RequirePass)
	add(&param{name: "maxclients", set: intRange(1, 4294967295)}, strconv.Itoa(o.MaxClients))
	add(&param{name: "proto-max-bulk-len", set: memRange(1<<20, 1<<63-1), apply: func(c *config, v string) error {
		n, _ := strconv.ParseInt(v, 10, 64)
		c.s.kv.SetMaxStringSize(n)
		return nil
	}}, strconv.FormatInt(o.Limits.MaxBulkLen, 10))
	add(&param{name: "client-query-buffer-limit", set: memRange(1<<20, 1<<63-1)}, strconv.FormatInt(o.QueryBufferLimit, 10))
	add(&param{name: "hz", set: hzRange, apply: forward}, "10")
	add(&param{name: "active-expire-effort", set: intRange(1, 10), apply: forward}, "1")
	add(&param{name: "timeout", set: intRange(0, 1<<31-1)}, "0")
	// Read-only here: mayfly does not evict, keep an append-only file or
	// take snapshots, so these only report what it does.
	add(&param{name: "maxmemory", immutable: true}, "0")
	add(&param{name: "maxmemory-policy", immutable: true}, "noeviction")
	add(&param{name: "lazyfree-lazy-expire", immutable: true}, "no")
	add(&param{name: "appendonly", immutable: true}, "no")
	add(&param{name: "save", immutable: true}, "")
	add(&param{name: "databases", immutable: true}, strconv.Itoa(kv.NumDBs))
	add(&param{name: "enable-debug-command", immutable: true}, "yes")
	return c
}

func forward(c *config, v string) error { return nil }

func intRange(lo, hi int64) func(*config, string) (string, string) {
	return func(_ *config, v string) (string, string) {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return "", "argument couldn't be parsed into an integer"
		}
		if n < lo || n > hi {
			return "", fmt.Sprintf("argument must be between %d and %d inclusive", lo, hi)
		}
		return strconv.FormatInt(n, 10), ""
	}
}

// hzRange clamps like Redis: any integer is accepted, stored within 1..500.
func hzRange(_ *config, v string) (string, string) {
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return "", "argument couldn't be parsed into an integer"
	}
	return strconv.FormatInt(min(max(n, 1), 500), 10), ""
}

func memRange(lo, hi int64) func(*config, string) (string, string) {
	return func(_ *config, v string) (string, string) {
		n, ok := parseMemory(v)
		if !ok {
			return "", "argument must be a memory value"
		}
		if n < lo || n > hi {
			return "", fmt.Sprintf("argument must be between %d and %d inclusive", lo, hi)
		}
		return strconv.FormatInt(n, 10), ""
	}
}

// parseMemory parses Redis's memory units: 1k = 1000, 1kb = 1024, and so on.
func parseMemory(v string) (int64, bool) {
	s := strings.ToLower(v)
	mul := int64(1)
	for _, u := range []struct {
		suf string
		mul int64
	}{{"kb", 1 << 10}, {"mb", 1 << 20}, {"gb", 1 << 30}, {"k", 1000}, {"m", 1000000}, {"g", 1000000000}, {"b", 1}} {
		if strings.HasSuffix(s, u.suf) {
			s, mul = strings.TrimSuffix(s, u.suf), u.mul
			break
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 || (mul > 1 && n > (1<<63-1)/mul) {
		return 0, false
	}
	return n * mul, true
}

func (c *config) get(name string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.vals[name]
}

func (c *config) requirePass() string { return c.get("requirepass") }

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

// match returns the parameters matching a glob pattern, sorted.
func (c *config) match(pattern []byte) []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for name := range c.vals {
		if glob.Match(pattern, []byte(name), true) {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

// setMany applies CONFIG SET's name/value pairs atomically: all are
// validated before any takes effect.
func (c *config) setMany(pairs [][]byte) error {
	type change struct {
		p   *param
		val string
	}
	var changes []change
	seen := map[string]bool{}
	for i := 0; i+1 < len(pairs); i += 2 {
		name := strings.ToLower(string(pairs[i]))
		p := c.params[name]
		if p == nil {
			return replyErr(fmt.Sprintf("ERR Unknown option or number of arguments for CONFIG SET - '%s'", pairs[i]))
		}
		if seen[name] {
			return replyErr(fmt.Sprintf("ERR CONFIG SET failed (possibly related to argument '%s') - duplicate parameter", name))
		}
		seen[name] = true
		if p.immutable {
			return replyErr(fmt.Sprintf("ERR CONFIG SET failed (possibly related to argument '%s') - can't set immutable config", name))
		}
		v, msg := p.set(c, string(pairs[i+1]))
		if msg != "" {
			return replyErr(fmt.Sprintf("ERR CONFIG SET failed (possibly related to argument '%s') - %s", name, msg))
		}
		changes = append(changes, change{p, v})
	}
	if hook := c.s.opts.OnConfigSet; hook != nil {
		for _, ch := range changes {
			if ch.p.name == "hz" || ch.p.name == "active-expire-effort" {
				if err := hook(ch.p.name, ch.val); err != nil {
					return replyErr(fmt.Sprintf("ERR CONFIG SET failed (possibly related to argument '%s') - %s", ch.p.name, err))
				}
			}
		}
	}
	c.mu.Lock()
	for _, ch := range changes {
		c.vals[ch.p.name] = ch.val
	}
	c.mu.Unlock()
	for _, ch := range changes {
		if ch.p.apply != nil {
			if err := ch.p.apply(c, ch.val); err != nil {
				return err
			}
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
