package resp_test

import (
	"bufio"
	"fmt"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"
)

// respConn is a raw connection that sends commands and reads single RESP2
// or RESP3 values, rendered as text: simple and bulk strings as is, errors
// as "(error) ...", nulls as "(nil)", arrays and sets as [a b], pushes as
// >[a b], maps as {k v}.
type respConn struct {
	t  *testing.T
	nc net.Conn
	r  *bufio.Reader
}

func (e *env) resp() *respConn {
	nc := e.raw()
	return &respConn{t: e.t, nc: nc, r: bufio.NewReader(nc)}
}

// send writes one command without reading its reply.
func (c *respConn) send(args ...any) {
	c.t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, "*%d\r\n", len(args))
	for _, a := range args {
		s := fmt.Sprint(a)
		fmt.Fprintf(&b, "$%d\r\n%s\r\n", len(s), s)
	}
	if _, err := c.nc.Write([]byte(b.String())); err != nil {
		c.t.Fatal(err)
	}
}

// do sends a command and reads one value.
func (c *respConn) do(args ...any) string {
	c.t.Helper()
	c.send(args...)
	return c.read()
}

// read reads the next value.
func (c *respConn) read() string {
	c.t.Helper()
	c.nc.SetReadDeadline(time.Now().Add(5 * time.Second))
	v, err := c.value()
	if err != nil {
		c.t.Fatalf("read: %v", err)
	}
	return v
}

// quiet says that nothing arrives within a short while: a PING's PONG is
// the next value.
func (c *respConn) quiet() {
	c.t.Helper()
	if got := c.do("PING"); got != "PONG" {
		c.t.Fatalf("got %q before PONG", got)
	}
}

func (c *respConn) value() (string, error) {
	line, err := c.r.ReadString('\n')
	if err != nil {
		return "", err
	}
	line = strings.TrimSuffix(line, "\r\n")
	if line == "" {
		return "", fmt.Errorf("empty line")
	}
	body := line[1:]
	switch line[0] {
	case '+', ':', ',', '#':
		return body, nil
	case '-':
		return "(error) " + body, nil
	case '_':
		return "(nil)", nil
	case '$', '=':
		n, _ := strconv.Atoi(body)
		if n < 0 {
			return "(nil)", nil
		}
		buf := make([]byte, n+2)
		if _, err := ioReadFull(c.r, buf); err != nil {
			return "", err
		}
		return string(buf[:n]), nil
	case '*', '>', '~', '%':
		n, _ := strconv.Atoi(body)
		if n < 0 {
			return "(nil)", nil
		}
		if line[0] == '%' {
			n *= 2
		}
		parts := make([]string, n)
		for i := range parts {
			if parts[i], err = c.value(); err != nil {
				return "", err
			}
		}
		open, close := "[", "]"
		switch line[0] {
		case '>':
			open = ">["
		case '%':
			open, close = "{", "}"
		}
		return open + strings.Join(parts, " ") + close, nil
	}
	return "", fmt.Errorf("unknown type %q", line)
}

func ioReadFull(r *bufio.Reader, buf []byte) (int, error) {
	n := 0
	for n < len(buf) {
		m, err := r.Read(buf[n:])
		n += m
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

func expect(t *testing.T, got, want string) {
	t.Helper()
	if got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}

// resp3 returns a connection in RESP3 with tracking on with opts.
func (e *env) resp3Tracking(opts ...any) *respConn {
	c := e.resp()
	if got := c.do("HELLO", "3"); !strings.HasPrefix(got, "{server") {
		e.t.Fatalf("HELLO 3: %q", got)
	}
	expect(e.t, c.do(append([]any{"CLIENT", "TRACKING", "ON"}, opts...)...), "OK")
	return c
}

// redirTarget returns a RESP2 client subscribed to __redis__:invalidate
// and its id.
func (e *env) redirTarget() (*respConn, string) {
	r := e.resp()
	id := r.do("CLIENT", "ID")
	expect(e.t, r.do("SUBSCRIBE", "__redis__:invalidate"), "[subscribe __redis__:invalidate 1]")
	return r, id
}

func TestTrackingDefaultModeRESP3(t *testing.T) {
	e := newEnv(t)
	a := e.resp3Tracking()
	b := e.resp()
	expect(t, b.do("SET", "k", "1"), "OK")
	expect(t, a.do("GET", "k"), "1")
	expect(t, b.do("SET", "other", "1"), "OK") // not read: no message
	expect(t, b.do("SET", "k", "2"), "OK")
	expect(t, a.read(), ">[invalidate [k]]")
	// The key is forgotten after its invalidation until read again.
	expect(t, b.do("SET", "k", "3"), "OK")
	a.quiet()
	// Missing keys are tracked too; MGET tracks every key.
	expect(t, a.do("MGET", "k", "nokey"), "[3 (nil)]")
	expect(t, b.do("DEL", "k", "nokey", "other"), "2")
	expect(t, a.read(), ">[invalidate [k]]")
	expect(t, b.do("SET", "nokey", "x"), "OK")
	expect(t, a.read(), ">[invalidate [nokey]]")
	// A client's own write invalidates after its reply.
	expect(t, a.do("HSET", "h", "f", "1"), "1")
	expect(t, a.do("HGET", "h", "f"), "1")
	expect(t, a.do("HDEL", "h", "f"), "1")
	expect(t, a.read(), ">[invalidate [h]]")
	// Off: nothing more.
	expect(t, a.do("GET", "k"), "(nil)")
	expect(t, a.do("CLIENT", "TRACKING", "OFF"), "OK")
	expect(t, b.do("SET", "k", "4"), "OK")
	a.quiet()
}

// TestTrackingPipelineOrder: a key read after the pipeline's own change of
// it stays tracked; one read before is invalidated, after the replies.
func TestTrackingPipelineOrder(t *testing.T) {
	e := newEnv(t)
	a := e.resp3Tracking()
	b := e.resp()
	a.send("SET", "k", "1")
	a.send("GET", "k")
	expect(t, a.read(), "OK")
	expect(t, a.read(), "1")
	expect(t, b.do("SET", "k", "2"), "OK")
	expect(t, a.read(), ">[invalidate [k]]")

	a.send("GET", "j")
	a.send("SET", "j", "1")
	expect(t, a.read(), "(nil)")
	expect(t, a.read(), "OK")
	expect(t, a.read(), ">[invalidate [j]]")

	// MULTI/EXEC: the invalidation follows EXEC's reply.
	expect(t, a.do("GET", "m"), "(nil)")
	expect(t, a.do("MULTI"), "OK")
	expect(t, a.do("INCR", "m"), "QUEUED")
	expect(t, a.do("GET", "n"), "QUEUED")
	expect(t, a.do("EXEC"), "[1 (nil)]")
	expect(t, a.read(), ">[invalidate [m]]")
	expect(t, b.do("SET", "n", "1"), "OK") // read inside EXEC: tracked
	expect(t, a.read(), ">[invalidate [n]]")
}

func TestTrackingRedirectRESP2(t *testing.T) {
	e := newEnv(t)
	r, id := e.redirTarget()
	a := e.resp()
	b := e.resp()
	expect(t, a.do("CLIENT", "TRACKING", "ON", "REDIRECT", id), "OK")
	expect(t, a.do("CLIENT", "GETREDIR"), id)
	expect(t, a.do("GET", "a"), "(nil)")
	expect(t, b.do("INCR", "b"), "1")
	expect(t, b.do("INCR", "a"), "1")
	expect(t, r.read(), "[message __redis__:invalidate [a]]")
	// A flush is a null.
	expect(t, a.do("GET", "a"), "1")
	expect(t, b.do("FLUSHALL"), "OK")
	expect(t, r.read(), "[message __redis__:invalidate (nil)]")
	expect(t, b.do("FLUSHDB"), "OK")
	expect(t, r.read(), "[message __redis__:invalidate (nil)]")
	// A RESP2 client without redirection gets nothing, and is told nothing.
	a2 := e.resp()
	expect(t, a2.do("CLIENT", "TRACKING", "ON"), "OK")
	expect(t, a2.do("GET", "x"), "(nil)")
	expect(t, b.do("SET", "x", "1"), "OK")
	a2.quiet()
}

func TestTrackingRedirectRESP3Target(t *testing.T) {
	e := newEnv(t)
	r := e.resp()
	r.do("HELLO", "3")
	id := r.do("CLIENT", "ID")
	a := e.resp()
	b := e.resp()
	expect(t, a.do("CLIENT", "TRACKING", "ON", "REDIRECT", id), "OK")
	expect(t, a.do("GET", "k"), "(nil)")
	expect(t, b.do("SET", "k", "1"), "OK")
	expect(t, r.read(), ">[invalidate [k]]")
}

func TestTrackingRedirectBroken(t *testing.T) {
	e := newEnv(t)
	r, id := e.redirTarget()
	a := e.resp()
	a.do("HELLO", "3")
	b := e.resp()
	expect(t, a.do("CLIENT", "TRACKING", "ON", "REDIRECT", id), "OK")
	expect(t, a.do("GET", "k"), "(nil)")
	expect(t, r.do("QUIT"), "OK") // gone for tracking once QUIT answers
	expect(t, b.do("SET", "k", "1"), "OK")
	expect(t, a.read(), ">[tracking-redir-broken "+id+"]")
	expect(t, a.do("CLIENT", "TRACKINGINFO"), "{flags [on broken_redirect] redirect "+id+" prefixes []}")
	if l := a.do("CLIENT", "INFO"); !strings.Contains(l, " flags=tR ") || !strings.Contains(l, " redir="+id+" ") {
		t.Fatalf("CLIENT INFO %q", l)
	}
}

func TestTrackingBcast(t *testing.T) {
	e := newEnv(t)
	r, id := e.redirTarget()
	a := e.resp()
	b := e.resp()
	expect(t, a.do("CLIENT", "TRACKING", "ON", "BCAST", "REDIRECT", id), "OK")
	expect(t, a.do("MSET", "a", "1", "b", "2", "c", "3"), "OK")
	expect(t, r.read(), "[message __redis__:invalidate [a b c]]")
	expect(t, a.do("CLIENT", "TRACKING", "OFF"), "OK")
	expect(t, a.do("CLIENT", "TRACKING", "ON", "BCAST", "REDIRECT", id, "PREFIX", "a:", "PREFIX", "b:"), "OK")
	a.send("MULTI")
	for _, k := range []string{"a:1", "a:2", "b:1", "c:1"} {
		a.send("INCR", k)
	}
	a.send("EXEC")
	for range 6 {
		a.read()
	}
	got := []string{r.read(), r.read()}
	if !(got[0] == "[message __redis__:invalidate [a:1 a:2]]" && got[1] == "[message __redis__:invalidate [b:1]]") &&
		!(got[1] == "[message __redis__:invalidate [a:1 a:2]]" && got[0] == "[message __redis__:invalidate [b:1]]") {
		t.Fatalf("got %q", got)
	}
	// More prefixes may be added; overlapping ones are refused.
	expect(t, a.do("CLIENT", "TRACKING", "ON", "BCAST", "REDIRECT", id, "PREFIX", "c:"), "OK")
	expect(t, a.do("CLIENT", "TRACKINGINFO"), "[flags [on bcast] redirect "+id+" prefixes [a: b: c:]]")
	expect(t, a.do("CLIENT", "TRACKING", "ON", "BCAST", "PREFIX", "a"),
		"(error) ERR Prefix 'a' overlaps with an existing prefix 'a:'. Prefixes for a single client must not overlap.")
	expect(t, b.do("INCR", "c:9"), "1")
	expect(t, r.read(), "[message __redis__:invalidate [c:9]]")
	// Pre-BCAST keys are not sent to a BCAST client.
	expect(t, a.do("CLIENT", "TRACKING", "OFF"), "OK")
	if got := a.do("CLIENT", "INFO"); !strings.Contains(got, "flags=N ") {
		t.Fatalf("CLIENT INFO %q", got)
	}
	expect(t, a.do("CLIENT", "TRACKING", "ON", "BCAST", "REDIRECT", id, "NOLOOP"), "OK")
	if got := a.do("CLIENT", "INFO"); !strings.Contains(got, "flags=tB ") {
		t.Fatalf("CLIENT INFO %q", got)
	}
	expect(t, b.do("SET", "other1", "1"), "OK")
	expect(t, a.do("SET", "loop", "1"), "OK") // NOLOOP: not sent
	expect(t, b.do("SET", "other2", "1"), "OK")
	expect(t, r.read(), "[message __redis__:invalidate [other1]]")
	expect(t, r.read(), "[message __redis__:invalidate [other2]]")
}

func TestTrackingNoloopDefaultMode(t *testing.T) {
	e := newEnv(t)
	r, id := e.redirTarget()
	a := e.resp()
	b := e.resp()
	expect(t, a.do("CLIENT", "TRACKING", "ON", "REDIRECT", id, "NOLOOP"), "OK")
	expect(t, a.do("MGET", "o1", "loop", "o2"), "[(nil) (nil) (nil)]")
	expect(t, b.do("SET", "o1", "1"), "OK")
	expect(t, a.do("SET", "loop", "1"), "OK")
	expect(t, b.do("SET", "o2", "1"), "OK")
	expect(t, r.read(), "[message __redis__:invalidate [o1]]")
	expect(t, r.read(), "[message __redis__:invalidate [o2]]")
}

func TestTrackingOptinOptout(t *testing.T) {
	e := newEnv(t)
	b := e.resp()
	in := e.resp3Tracking("OPTIN")
	expect(t, in.do("GET", "k1"), "(nil)") // not cached
	expect(t, in.do("CLIENT", "CACHING", "YES"), "OK")
	expect(t, in.do("CLIENT", "TRACKINGINFO"), "{flags [on optin caching-yes] redirect 0 prefixes []}")
	expect(t, in.do("GET", "k2"), "(nil)") // cached
	expect(t, in.do("GET", "k3"), "(nil)") // CACHING YES was for one command
	expect(t, in.do("CLIENT", "CACHING", "YES"), "OK")
	expect(t, in.do("MULTI"), "OK")
	expect(t, in.do("GET", "k4"), "QUEUED")
	expect(t, in.do("GET", "k5"), "QUEUED")
	expect(t, in.do("EXEC"), "[(nil) (nil)]") // a transaction is one "next command"
	expect(t, b.do("MSET", "k1", "1", "k2", "1", "k3", "1", "k4", "1", "k5", "1"), "OK")
	expect(t, in.read(), ">[invalidate [k2]]")
	expect(t, in.read(), ">[invalidate [k4]]")
	expect(t, in.read(), ">[invalidate [k5]]")
	in.quiet()

	out := e.resp3Tracking("OPTOUT")
	expect(t, out.do("CLIENT", "CACHING", "NO"), "OK")
	expect(t, out.do("CLIENT", "TRACKINGINFO"), "{flags [on optout caching-no] redirect 0 prefixes []}")
	expect(t, out.do("GET", "k1"), "1") // not cached
	expect(t, out.do("GET", "k2"), "1") // cached
	expect(t, b.do("MSET", "k1", "2", "k2", "2"), "OK")
	expect(t, out.read(), ">[invalidate [k2]]")
	out.quiet()
}

// TestTrackingErrors is every refusal of CLIENT TRACKING and CLIENT
// CACHING, in Redis's words.
func TestTrackingErrors(t *testing.T) {
	e := newEnv(t)
	c := e.resp()
	cases := []struct {
		args []any
		want string
	}{
		{[]any{"CLIENT", "TRACKING", "ON", "PREFIX", "a"}, "ERR PREFIX option requires BCAST mode to be enabled"},
		{[]any{"CLIENT", "TRACKING", "ON", "BCAST", "OPTIN"}, "ERR OPTIN and OPTOUT are not compatible with BCAST"},
		{[]any{"CLIENT", "TRACKING", "ON", "OPTIN", "OPTOUT"}, "ERR You can't specify both OPTIN mode and OPTOUT mode"},
		{[]any{"CLIENT", "TRACKING", "ON", "REDIRECT", "9999"}, "ERR The client ID you want redirect to does not exist"},
		{[]any{"CLIENT", "TRACKING", "ON", "REDIRECT", "x"}, "ERR value is not an integer or out of range"},
		{[]any{"CLIENT", "TRACKING", "ON", "REDIRECT", "1", "REDIRECT", "1"}, "ERR A client can only redirect to a single other client"},
		{[]any{"CLIENT", "TRACKING", "ON", "BOGUS"}, "ERR syntax error"},
		{[]any{"CLIENT", "TRACKING", "MAYBE"}, "ERR syntax error"},
		{[]any{"CLIENT", "TRACKING", "ON", "REDIRECT"}, "ERR syntax error"},
		{[]any{"CLIENT", "TRACKING", "ON", "BCAST", "PREFIX", "FOOBAR", "PREFIX", "FOO"},
			"ERR Prefix 'FOOBAR' overlaps with another provided prefix 'FOO'. Prefixes for a single client must not overlap."},
		{[]any{"CLIENT", "TRACKING"}, "ERR wrong number of arguments for 'client|tracking' command"},
		{[]any{"CLIENT", "CACHING", "YES"}, "ERR CLIENT CACHING can be called only when the client is in tracking mode with OPTIN or OPTOUT mode enabled"},
	}
	for _, tc := range cases {
		expect(t, c.do(tc.args...), "(error) "+tc.want)
	}
	expect(t, c.do("CLIENT", "TRACKINGINFO"), "[flags [off] redirect -1 prefixes []]")
	expect(t, c.do("CLIENT", "GETREDIR"), "-1")
	expect(t, c.do("CLIENT", "TRACKING", "ON"), "OK")
	expect(t, c.do("CLIENT", "GETREDIR"), "0")
	for _, tc := range []struct {
		args []any
		want string
	}{
		{[]any{"CLIENT", "CACHING", "YES"}, "ERR CLIENT CACHING YES is only valid when tracking is enabled in OPTIN mode."},
		{[]any{"CLIENT", "CACHING", "NO"}, "ERR CLIENT CACHING NO is only valid when tracking is enabled in OPTOUT mode."},
		{[]any{"CLIENT", "CACHING", "MAYBE"}, "ERR syntax error"},
		{[]any{"CLIENT", "TRACKING", "ON", "BCAST"}, "ERR You can't switch BCAST mode on/off before disabling tracking for this client, and then re-enabling it with a different mode."},
	} {
		expect(t, c.do(tc.args...), "(error) "+tc.want)
	}
	expect(t, c.do("CLIENT", "TRACKING", "ON", "OPTIN"), "OK")
	expect(t, c.do("CLIENT", "TRACKING", "ON", "OPTOUT"),
		"(error) ERR You can't switch OPTIN/OPTOUT mode before disabling tracking for this client, and then re-enabling it with a different mode.")
	expect(t, c.do("CLIENT", "TRACKING", "OFF"), "OK")
	expect(t, c.do("CLIENT", "TRACKING", "ON", "BCAST", "PREFIX", "FOO", "PREFIX", "BAR"), "OK")
	expect(t, c.do("CLIENT", "TRACKING", "ON", "BCAST", "PREFIX", "BARB"),
		"(error) ERR Prefix 'BARB' overlaps with an existing prefix 'BAR'. Prefixes for a single client must not overlap.")
	expect(t, c.do("CLIENT", "TRACKINGINFO"), "[flags [on bcast] redirect 0 prefixes [BAR FOO]]")
}

// TestTrackingExpiry: a tracked key is invalidated when the expiry engine
// deletes it, and when a read finds it expired (after that read's reply).
func TestTrackingExpiry(t *testing.T) {
	e := newEnv(t)
	a := e.resp3Tracking()
	b := e.resp()
	expect(t, b.do("SET", "session", "v", "PX", "1000"), "OK")
	expect(t, a.do("GET", "session"), "v")
	e.clock.Advance(2 * time.Second)
	if n := e.reap(); n != 1 {
		t.Fatalf("reaped %d", n)
	}
	expect(t, a.read(), ">[invalidate [session]]")

	expect(t, b.do("SET", "lazy", "v", "PX", "1000"), "OK")
	expect(t, a.do("MGET", "x", "lazy"), "[(nil) v]")
	e.clock.Advance(2 * time.Second)
	expect(t, a.do("MGET", "x", "lazy"), "[(nil) (nil)]")
	expect(t, a.read(), ">[invalidate [lazy]]")
	// The read that found it expired tracks it again.
	expect(t, b.do("SET", "lazy", "w"), "OK")
	expect(t, a.read(), ">[invalidate [lazy]]")

	// A hash whose field expires is invalidated.
	expect(t, b.do("HSET", "h", "f", "1", "g", "2"), "2")
	expect(t, b.do("HPEXPIRE", "h", "1000", "FIELDS", "1", "f"), "[1]")
	expect(t, a.do("HGET", "h", "g"), "2")
	e.clock.Advance(2 * time.Second)
	if n := reapFields(e); n != 1 {
		t.Fatalf("reaped %d fields", n)
	}
	expect(t, a.read(), ">[invalidate [h]]")
}

func TestTrackingFlushRESP3(t *testing.T) {
	e := newEnv(t)
	a := e.resp3Tracking()
	expect(t, a.do("SET", "k", "1"), "OK")
	expect(t, a.do("GET", "k"), "1")
	expect(t, a.do("MULTI"), "OK")
	expect(t, a.do("FLUSHDB"), "QUEUED")
	expect(t, a.do("EXEC"), "[OK]")
	expect(t, a.read(), ">[invalidate (nil)]")
	a.quiet()
	// SWAPDB replaces whole databases too.
	expect(t, a.do("GET", "k"), "(nil)")
	expect(t, a.do("SWAPDB", "0", "1"), "OK")
	expect(t, a.read(), ">[invalidate (nil)]")
	if info := a.do("INFO", "stats"); !strings.Contains(info, "\r\ntracking_total_keys:0\r\n") {
		t.Fatalf("INFO %q", info)
	}
}

func TestTrackingScripts(t *testing.T) {
	e := newEnv(t)
	a := e.resp3Tracking()
	b := e.resp()
	// A script that reads nothing tracks nothing.
	expect(t, a.do("EVAL", "redis.call('set', 'k3', 'bar')", "2", "k1", "k2"), "(nil)")
	expect(t, b.do("MSET", "k1", "1", "k2", "1"), "OK")
	a.quiet()
	// A script that reads tracks its declared keys.
	expect(t, a.do("EVAL", "redis.call('get', 'k3')", "2", "k1", "k2"), "(nil)")
	expect(t, b.do("MSET", "k2", "2", "k1", "2", "k3", "2"), "OK")
	expect(t, a.read(), ">[invalidate [k2]]")
	expect(t, a.read(), ">[invalidate [k1]]")
	a.quiet()
	expect(t, a.do("EVAL_RO", "redis.call('get', 'k1')", "1", "k2"), "(nil)")
	expect(t, b.do("EVAL", "redis.call('set', KEYS[1], 'x')", "1", "k2"), "(nil)")
	expect(t, a.read(), ">[invalidate [k2]]")
}

func TestTrackingTableMaxKeys(t *testing.T) {
	e := newEnv(t)
	r, id := e.redirTarget()
	a := e.resp()
	expect(t, a.do("CLIENT", "TRACKING", "ON", "REDIRECT", id), "OK")
	for i := range 250 {
		expect(t, a.do("GET", fmt.Sprint("key", i)), "(nil)")
	}
	info := a.do("INFO")
	for _, l := range []string{"tracking_clients:1", "tracking_total_keys:250", "tracking_total_items:250", "tracking_total_prefixes:0"} {
		if !strings.Contains(info, "\r\n"+l+"\r\n") {
			t.Fatalf("INFO lacks %s", l)
		}
	}
	expect(t, a.do("CONFIG", "SET", "tracking-table-max-keys", "1"), "OK")
	for range 249 {
		if got := r.read(); !strings.HasPrefix(got, "[message __redis__:invalidate [key") {
			t.Fatalf("got %q", got)
		}
	}
	expect(t, r.do("PING"), "[pong ]")
	if info := a.do("INFO", "stats"); !strings.Contains(info, "\r\ntracking_total_keys:1\r\n") {
		t.Fatalf("INFO %q", info)
	}
	// A new read past the limit evicts one more.
	expect(t, a.do("GET", "again"), "(nil)")
	if got := r.read(); !strings.HasPrefix(got, "[message __redis__:invalidate [") {
		t.Fatalf("got %q", got)
	}
	// Off, the keys stay remembered until they change, as in Redis.
	expect(t, a.do("CLIENT", "TRACKING", "OFF"), "OK")
	if info := a.do("INFO"); !strings.Contains(info, "\r\ntracking_clients:0\r\n") || !strings.Contains(info, "\r\ntracking_total_keys:1\r\n") {
		t.Fatalf("INFO after off %q", info)
	}
	expect(t, a.do("SET", "again", "1"), "OK")
	for i := range 250 {
		a.send("SET", fmt.Sprint("key", i), "1")
	}
	for range 250 {
		a.read()
	}
	if info := a.do("INFO"); !strings.Contains(info, "\r\ntracking_total_keys:0\r\n") || !strings.Contains(info, "\r\ntracking_total_items:0\r\n") {
		t.Fatalf("INFO after the changes %q", info)
	}
	expect(t, r.do("PING"), "[pong ]") // a client that stopped tracking is told nothing
}

// TestTrackingServedBlockedClient: a blocked BLMOVE served by another
// client's push gets its reply first, then the invalidation of the key
// its move changed.
func TestTrackingServedBlockedClient(t *testing.T) {
	e := newEnv(t)
	a := e.resp3Tracking()
	b := e.resp()
	expect(t, b.do("RPUSH", "list2", "a"), "1")
	expect(t, a.do("LRANGE", "list2", "0", "-1"), "[a]")
	a.send("BLMOVE", "list1", "list2", "LEFT", "LEFT", "0")
	waitBlockedCount(t, e, 1)
	expect(t, b.do("RPUSH", "list1", "foo"), "1")
	expect(t, a.read(), "foo")
	expect(t, a.read(), ">[invalidate [list2]]")
}
