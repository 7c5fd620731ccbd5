package mongo

import (
	"errors"
	"io"
	"log/slog"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb"
	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
)

// loggingTo makes the server log to logs, which tests read while the
// server writes (rawServer's buffer cannot be read safely meanwhile).
func loggingTo(logs *syncBuffer) func(*Options) {
	return func(o *Options) { o.Logger = slog.New(slog.NewTextHandler(logs, nil)) }
}

// waitConnClosed waits until the server closes rc and returns how long it
// took.
func waitConnClosed(t *testing.T, rc *rawConn, within time.Duration) time.Duration {
	t.Helper()
	start := time.Now()
	rc.nc.SetReadDeadline(start.Add(within))
	_, err := io.Copy(io.Discard, rc.r)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		t.Fatalf("connection still open after %s", within)
	}
	return time.Since(start)
}

// Ensure that a client that sends part of a message and stalls is closed
// once the frame timeout has passed since the message's first byte, while
// an idle connection (between messages) stays open, as in MongoDB.
func TestFrameTimeoutClosesStalledMessage(t *testing.T) {
	logs := &syncBuffer{}
	_, addr, _ := rawServer(t, loggingTo(logs), func(o *Options) { o.FrameTimeout = 300 * time.Millisecond })
	idle := dialRaw(t, addr)
	idle.ping()
	ping := func(rc *rawConn) []byte {
		return rc.msg(0, bson.D{{Key: "ping", Value: 1}, {Key: "$db", Value: "admin"}})
	}
	for name, cut := range map[string]func([]byte) []byte{
		"inside the header": func(f []byte) []byte { return f[:7] },
		"inside the body":   func(f []byte) []byte { return f[:len(f)-3] },
	} {
		t.Run(name, func(t *testing.T) {
			rc := dialRaw(t, addr)
			start := time.Now()
			rc.send(cut(ping(rc)))
			waitConnClosed(t, rc, 5*time.Second)
			if took := time.Since(start); took < 250*time.Millisecond {
				t.Fatalf("closed after %s, before the frame timeout", took)
			}
		})
	}
	// The idle connection outlived the frame timeouts and still serves.
	idle.ping()
	if !strings.Contains(logs.String(), "did not send the rest of its message within the frame timeout") {
		t.Fatalf("frame timeout not logged:\n%s", logs)
	}
	// A message sent in pieces within the timeout is served.
	rc := dialRaw(t, addr)
	f := ping(rc)
	rc.send(f[:10])
	rc.send(f[10:])
	if ok := rc.reply().Lookup("ok").Double(); ok != 1 {
		t.Fatal("ping in pieces failed")
	}
}

// Ensure that a client that stops reading its replies is closed once a
// part of them could not be written within the frame timeout.
func TestFrameTimeoutClosesClientNotReading(t *testing.T) {
	s, addr, _ := rawServer(t, func(o *Options) { o.FrameTimeout = 2 * time.Second })
	rc := dialRaw(t, addr)
	rc.send(rc.msg(0, bson.D{{Key: "insert", Value: "big"}, {Key: "$db", Value: "test"},
		{Key: "documents", Value: bson.A{bson.D{{Key: "_id", Value: 1}, {Key: "p", Value: bson.Binary{Data: make([]byte, 4<<20)}}}}}}))
	if n := rc.reply().Lookup("n").Int32(); n != 1 {
		t.Fatalf("insert n=%d", n)
	}
	before := s.connectionCount()
	reader := dialRaw(t, addr)
	for range 32 { // 128 MB of replies, never read
		reader.send(reader.msg(0, bson.D{{Key: "find", Value: "big"}, {Key: "$db", Value: "test"}}))
	}
	awaitState(t, s, "not within 30 s: the client is connected", func() bool { return s.connectionCount() > before })
	awaitState(t, s, "not within 30 s: the client not reading its replies is closed", func() bool { return s.connectionCount() <= before })
	rc.ping()
}

// Ensure that a panic outside a command handler (here in the latency
// hook, after the handler returned) is recovered by the connection loop:
// logged with the command, answered with InternalError in the message's
// protocol, or, for a message that expects no reply, answered by closing
// only that connection; the server serves on.
func TestPanicOutsideHandlerIsRecovered(t *testing.T) {
	var panics atomic.Int32
	logs := &syncBuffer{}
	_, addr, _ := rawServer(t, loggingTo(logs), func(o *Options) {
		o.ObserveLatency = func(time.Duration) {
			if panics.Add(-1) >= 0 {
				panic("injected by the test")
			}
		}
	})
	other := dialRaw(t, addr)
	other.ping()

	panics.Store(1)
	rc := dialRaw(t, addr)
	rc.send(rc.msg(0, bson.D{{Key: "ping", Value: 1}, {Key: "$db", Value: "admin"}}))
	wantCode(t, rc.reply(), mongoerr.InternalError, "internal error while running command ping")
	rc.ping()
	if l := logs.String(); !strings.Contains(l, "panic while processing a message") || !strings.Contains(l, "command=ping") {
		t.Fatalf("panic not logged with its command:\n%s", l)
	}

	panics.Store(1)
	rc.send(opQueryFrame(t, 21, "admin.$cmd", bson.D{{Key: "hello", Value: 1}}))
	r := wantOpReply(t, rc, 21, replyQueryFailure)
	if r.Lookup("code").Int32() != int32(mongoerr.InternalError) || r.Lookup("$err").StringValue() != "internal error while running command hello" {
		t.Fatalf("OP_QUERY reply %v", r)
	}
	rc.ping()

	panics.Store(1)
	quiet := dialRaw(t, addr)
	quiet.send(quiet.msg(flagMoreToCome, bson.D{{Key: "ping", Value: 1}, {Key: "$db", Value: "admin"}}))
	waitConnClosed(t, quiet, 5*time.Second)

	other.ping()
	rc.ping()
}

// Ensure net.maxIncomingConnections: past the limit a new connection is
// closed and the refusal logged in MongoDB's words, serverStatus counts
// connections.available down to it, and the limit admits again once a
// client leaves.
func TestMaxConnectionsAvailable(t *testing.T) {
	logs := &syncBuffer{}
	s, addr, _ := rawServer(t, loggingTo(logs), func(o *Options) { o.MaxConnections = 3 })
	a, b := dialRaw(t, addr), dialRaw(t, addr)
	a.ping()
	b.ping()
	status := func(rc *rawConn) bson.Raw {
		rc.send(rc.msg(0, bson.D{{Key: "serverStatus", Value: 1}, {Key: "$db", Value: "admin"}}))
		return rc.reply().Lookup("connections").Document()
	}
	conns := status(a)
	if cur, avail := conns.Lookup("current").Int32(), conns.Lookup("available").Int32(); cur != 2 || avail != 1 {
		t.Fatalf("connections %v, want current 2 available 1", conns)
	}
	c := dialRaw(t, addr)
	c.ping()
	dialRaw(t, addr).expectClosed()
	if !strings.Contains(logs.String(), "Connection refused because there are too many open connections") {
		t.Fatalf("refusal not logged:\n%s", logs)
	}
	if conns := status(a); conns.Lookup("available").Int32() != 0 || conns.Lookup("rejected").Int64() != 1 {
		t.Fatalf("connections at the limit %v", conns)
	}
	c.nc.Close()
	awaitState(t, s, "a closed connection is still counted after 30 s", func() bool { return status(a).Lookup("available").Int32() == 1 })
	dialRaw(t, addr).ping()
}

// Ensure the connection limit's range: MongoDB's int, zero meaning its
// default of 1,000,000.
func TestMaxConnectionsValidate(t *testing.T) {
	for n, ok := range map[int]bool{-1: false, 1 << 31: false, 0: true, 1: true, 1<<31 - 1: true} {
		o := Options{DB: new(docdb.Engine), MaxConnections: n}
		o.EnsureDefaults()
		if err := o.Validate(); (err == nil) != ok {
			t.Fatalf("MaxConnections %d: %v", n, err)
		}
		if n == 0 && o.MaxConnections != 1_000_000 {
			t.Fatalf("default MaxConnections %d", o.MaxConnections)
		}
	}
}
