package resp_test

import (
	"bufio"
	"errors"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mayfly/mayfly/internal/wire/resp"
)

// readLine reads one reply line from r, with its CRLF.
func readLine(t *testing.T, r *bufio.Reader) string {
	t.Helper()
	l, err := r.ReadString('\n')
	if err != nil {
		t.Fatalf("read: %v (got %q)", err, l)
	}
	return l
}

// waitClosed waits until the server closes c and returns how long it took.
func waitClosed(t *testing.T, c net.Conn, within time.Duration) time.Duration {
	t.Helper()
	start := time.Now()
	c.SetReadDeadline(start.Add(within))
	_, err := io.Copy(io.Discard, c)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		t.Fatalf("connection still open after %s", within)
	}
	return time.Since(start)
}

// waitClients waits until cond holds of the server, re-checking it each
// time a client connects, leaves or blocks.
func waitClients(t *testing.T, e *env, what string, cond func() bool) {
	t.Helper()
	deadline := time.NewTimer(30 * time.Second)
	defer deadline.Stop()
	for {
		changed := e.srv.ClientsChanged()
		if cond() {
			return
		}
		select {
		case <-changed:
		case <-deadline.C:
			t.Fatalf("not within 30 s: %s", what)
		}
	}
}

func withFrameTimeout(d time.Duration) func(*resp.Options) {
	return func(o *resp.Options) { o.FrameTimeout = d }
}

// Ensure that a client that sends part of a request and stalls is closed
// once the frame timeout has passed since the request's first byte, while
// an idle client (between requests) stays open, as in Redis.
func TestFrameTimeoutClosesStalledRequest(t *testing.T) {
	e := newEnv(t, withFrameTimeout(300*time.Millisecond))
	idle := e.raw()
	for _, partial := range []string{
		"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$10\r\nabc", // inside a bulk
		"*3\r\n$3\r\nSET\r\n$1",                    // inside a header
		"PING",                                     // an inline request without its line end
	} {
		c := e.raw()
		start := time.Now()
		if _, err := io.WriteString(c, partial); err != nil {
			t.Fatal(err)
		}
		waitClosed(t, c, 5*time.Second)
		if took := time.Since(start); took < 250*time.Millisecond {
			t.Fatalf("%q: closed after %s, before the frame timeout", partial, took)
		}
	}
	// The idle connection outlived several frame timeouts and still serves.
	io.WriteString(idle, "PING\r\n")
	idle.SetReadDeadline(time.Now().Add(5 * time.Second))
	if got := readLine(t, bufio.NewReader(idle)); got != "+PONG\r\n" {
		t.Fatalf("idle client: %q", got)
	}
	// A request completed within the timeout, in pieces, is served.
	c := e.raw()
	r := bufio.NewReader(c)
	io.WriteString(c, "*1\r\n$4\r\nPI")
	io.WriteString(c, "NG\r\n")
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	if got := readLine(t, r); got != "+PONG\r\n" {
		t.Fatalf("request in pieces: %q", got)
	}
}

// Ensure that the frame timeout does not touch a client blocked in BLPOP
// longer than it, even one that pipelined part of its next request, and
// that the rest of that request gets a new frame timeout once BLPOP
// returned.
func TestFrameTimeoutSparesBlockedClients(t *testing.T) {
	e := newEnv(t, withFrameTimeout(300*time.Millisecond))
	c := e.raw()
	r := bufio.NewReader(c)
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	start := time.Now()
	io.WriteString(c, "BLPOP nokey 1\r\n*1\r\n$4\r\nPI")
	if got := readLine(t, r); got != "*-1\r\n" {
		t.Fatalf("BLPOP: %q", got)
	}
	if took := time.Since(start); took < 900*time.Millisecond {
		t.Fatalf("BLPOP returned after %s, before its 1 s timeout", took)
	}
	io.WriteString(c, "NG\r\n")
	if got := readLine(t, r); got != "+PONG\r\n" {
		t.Fatalf("the request pipelined behind BLPOP: %q", got)
	}
}

// Ensure that a client that stops reading its replies is closed once a
// chunk of them could not be written within the frame timeout, instead of
// holding its replies and its goroutine forever.
func TestFrameTimeoutClosesClientNotReading(t *testing.T) {
	e := newEnv(t, withFrameTimeout(time.Second))
	rc := e.client(2)
	if err := rc.Set(t.Context(), "big", strings.Repeat("x", 1<<20), 0).Err(); err != nil {
		t.Fatal(err)
	}
	before := e.srv.Stats().ConnectedClients
	c := e.raw()
	io.WriteString(c, strings.Repeat("GET big\r\n", 24)) // 24 MB of replies, never read
	waitClients(t, e, "the client is connected", func() bool { return e.srv.Stats().ConnectedClients > before })
	waitClients(t, e, "the client not reading its replies is closed", func() bool { return e.srv.Stats().ConnectedClients <= before })
	if err := rc.Ping(t.Context()).Err(); err != nil {
		t.Fatal(err)
	}
}

// Ensure client-query-buffer-limit: a client whose pending request passes
// it is closed, as Redis does, and the parameter has Redis's name, default
// and range.
func TestQueryBufferLimit(t *testing.T) {
	e := newEnv(t, func(o *resp.Options) { o.QueryBufferLimit = 256 << 10 })
	c := e.raw()
	io.WriteString(c, "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1000000\r\n")
	c.Write(make([]byte, 64<<10))
	waitClosed(t, c, 5*time.Second)
	// Many small arguments count too: 100k empty arguments are 600 KB
	// on the wire.
	c = e.raw()
	io.WriteString(c, "*200000\r\n")
	c.Write([]byte(strings.Repeat("$0\r\n\r\n", 100000)))
	waitClosed(t, c, 5*time.Second)
	// Under the limit, a big request is served.
	rc := e.client(2)
	if err := rc.Set(t.Context(), "k", strings.Repeat("v", 200<<10), 0).Err(); err != nil {
		t.Fatal(err)
	}

	d := newEnv(t)
	rd := d.client(2)
	if got := rd.ConfigGet(t.Context(), "client-query-buffer-limit").Val()["client-query-buffer-limit"]; got != "1073741824" {
		t.Fatalf("default client-query-buffer-limit %q", got)
	}
	err := rd.ConfigSet(t.Context(), "client-query-buffer-limit", "1000").Err()
	if err == nil || err.Error() != "ERR CONFIG SET failed (possibly related to argument 'client-query-buffer-limit') - argument must be between 1048576 and 9223372036854775807 inclusive" {
		t.Fatalf("CONFIG SET under 1mb: %v", err)
	}
	if err := rd.ConfigSet(t.Context(), "client-query-buffer-limit", "2mb").Err(); err != nil {
		t.Fatal(err)
	}
}

// Ensure that a panic in a command is recovered in the connection loop:
// the command is answered with an internal error, the commands of the same
// pipeline whose writes its rollback undid are answered with errors too,
// the store is released, and this and every other client go on.
func TestCommandPanicIsAnswered(t *testing.T) {
	e := newEnv(t, func(o *resp.Options) {
		o.ExpiryStats = func() resp.ExpiryStats { panic("injected by the test") }
	})
	c := e.raw()
	r := bufio.NewReader(c)
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	io.WriteString(c, "SET a 1\r\nINFO stats\r\nGET a\r\nSET b 2\r\nPING\r\n")
	for _, want := range []string{
		"-ERR internal error in a command of the same pipeline: this command's writes were rolled back\r\n",
		"-ERR internal error while running 'info': the command was not applied\r\n",
		"$-1\r\n", // SET a was rolled back
		"+OK\r\n",
		"+PONG\r\n",
	} {
		if got := readLine(t, r); got != want {
			t.Fatalf("got %q, want %q", got, want)
		}
	}
	rc := e.client(2)
	if got, err := rc.Get(t.Context(), "b").Result(); err != nil || got != "2" {
		t.Fatalf("another client after the panic: %q, %v", got, err)
	}
	// A panic in a command run by EXEC fails the whole EXEC, whose writes
	// are rolled back.
	for _, step := range []struct{ send, want string }{
		{"MULTI\r\n", "+OK\r\n"},
		{"SET c 3\r\n", "+QUEUED\r\n"},
		{"INFO stats\r\n", "+QUEUED\r\n"},
		{"EXEC\r\n", "-ERR internal error while running 'exec': the command was not applied\r\n"},
		{"EXISTS c\r\n", ":0\r\n"},
	} {
		io.WriteString(c, step.send)
		if got := readLine(t, r); got != step.want {
			t.Fatalf("%q: got %q, want %q", step.send, got, step.want)
		}
	}
}

// Ensure that the latency a command reports leaves out the time a
// blocking command waited, as Redis's latency figures do.
func TestLatencyExcludesBlockedTime(t *testing.T) {
	var mu sync.Mutex
	var seen []time.Duration
	e := newEnv(t, func(o *resp.Options) {
		o.ObserveLatency = func(d time.Duration) {
			mu.Lock()
			seen = append(seen, d)
			mu.Unlock()
		}
	})
	c := e.raw()
	r := bufio.NewReader(c)
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	start := time.Now()
	io.WriteString(c, "BLPOP nokey 0.5\r\n")
	if got := readLine(t, r); got != "*-1\r\n" {
		t.Fatalf("BLPOP: %q", got)
	}
	if took := time.Since(start); took < 450*time.Millisecond {
		t.Fatalf("BLPOP returned after %s", took)
	}
	io.WriteString(c, "PING\r\n")
	readLine(t, r)
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != 2 {
		t.Fatalf("%d latencies observed, want 2 (BLPOP, PING)", len(seen))
	}
	if seen[0] <= 0 || seen[0] > 250*time.Millisecond {
		t.Fatalf("BLPOP's observed latency %s includes its wait", seen[0])
	}
}
