package integration_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/integration/harness"
)

// rawConn is a TCP connection for sending bytes no client library would.
type rawConn struct {
	net.Conn
	r *bufio.Reader
}

func dialRaw(t testing.TB, addr string) *rawConn {
	t.Helper()
	nc, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	nc.SetDeadline(time.Now().Add(20 * time.Second))
	return &rawConn{Conn: nc, r: bufio.NewReaderSize(nc, 1<<16)}
}

// line reads one reply line without its CRLF.
func (c *rawConn) line(t testing.TB) string {
	t.Helper()
	l, err := c.r.ReadString('\n')
	if err != nil {
		t.Fatalf("read reply: %v (got %q)", err, l)
	}
	return strings.TrimSuffix(l, "\r\n")
}

// closed reports whether the server closed the connection (reading gives
// EOF or a reset within the deadline).
func (c *rawConn) closed(within time.Duration) bool {
	c.SetReadDeadline(time.Now().Add(within))
	_, err := c.r.ReadByte()
	var ne net.Error
	return err != nil && !(errors.As(err, &ne) && ne.Timeout())
}

// Ensure that RESP requests over Redis's protocol limits get Redis's exact
// protocol error and a closed connection, while the server keeps serving.
func TestRespProtocolLimits(t *testing.T) {
	s := harness.Start(t)
	big := strings.Repeat("a", 70<<10)
	tests := []struct {
		name, send, want string
	}{
		{"bulk over proto-max-bulk-len", "*2\r\n$3\r\nGET\r\n$536870913\r\n", "-ERR Protocol error: invalid bulk length"},
		{"negative bulk length", "*2\r\n$3\r\nGET\r\n$-2\r\n", "-ERR Protocol error: invalid bulk length"},
		{"multibulk over INT_MAX", "*2147483648\r\n", "-ERR Protocol error: invalid multibulk length"},
		{"multibulk count not a number", "*x\r\n", "-ERR Protocol error: invalid multibulk length"},
		{"inline over 64 KiB", big, "-ERR Protocol error: too big inline request"},
		{"multibulk count line over 64 KiB", "*" + big, "-ERR Protocol error: too big mbulk count string"},
		{"bulk count line over 64 KiB", "*1\r\n$" + big, "-ERR Protocol error: too big bulk count string"},
		{"no dollar", "*1\r\nx\r\n", "-ERR Protocol error: expected '$', got 'x'"},
		{"unbalanced quotes", "SET \"a b\r\n", "-ERR Protocol error: unbalanced quotes in request"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := dialRaw(t, s.RespAddr)
			if _, err := io.WriteString(c, tt.send); err != nil {
				t.Fatal(err)
			}
			if got := c.line(t); got != tt.want {
				t.Fatalf("reply %q, want %q", got, tt.want)
			}
			if !c.closed(5 * time.Second) {
				t.Fatal("connection still open after a protocol error")
			}
		})
	}
	rc := connectRedis(t, s)
	if err := rc.Ping(t.Context()).Err(); err != nil {
		t.Fatalf("server stopped serving: %v", err)
	}
}

// Ensure that proto-max-bulk-len is configurable: a smaller limit refuses
// longer arguments at the protocol level and strings that would grow past
// it with Redis's error, and a larger value is accepted again.
func TestLimitRespProtoMaxBulkLenConfigurable(t *testing.T) {
	s := harness.Start(t)
	rc := connectRedis(t, s)
	ctx := t.Context()
	if err := rc.ConfigSet(ctx, "proto-max-bulk-len", "1mb").Err(); err != nil {
		t.Fatal(err)
	}
	if got := rc.ConfigGet(ctx, "proto-max-bulk-len").Val()["proto-max-bulk-len"]; got != "1048576" {
		t.Fatalf("CONFIG GET proto-max-bulk-len = %q", got)
	}
	c := dialRaw(t, s.RespAddr)
	io.WriteString(c, "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1048577\r\n")
	if got := c.line(t); got != "-ERR Protocol error: invalid bulk length" {
		t.Fatalf("argument over the new limit: %q", got)
	}
	// Exactly the limit is accepted.
	if err := rc.Set(ctx, "k", strings.Repeat("x", 1<<20), 0).Err(); err != nil {
		t.Fatalf("SET of exactly proto-max-bulk-len bytes: %v", err)
	}
	err := rc.Append(ctx, "k", "y").Err()
	if err == nil || err.Error() != "ERR string exceeds maximum allowed size (proto-max-bulk-len)" {
		t.Fatalf("APPEND past the limit: %v", err)
	}
	err = rc.SetRange(ctx, "k2", 1<<20, "y").Err()
	if err == nil || err.Error() != "ERR string exceeds maximum allowed size (proto-max-bulk-len)" {
		t.Fatalf("SETRANGE past the limit: %v", err)
	}
	if err := rc.ConfigSet(ctx, "proto-max-bulk-len", "1000").Err(); err == nil ||
		!strings.Contains(err.Error(), "proto-max-bulk-len") {
		t.Fatalf("CONFIG SET proto-max-bulk-len under 1mb: %v", err)
	}
}

// Ensure maxclients: past it a new connection gets Redis's error and is
// closed, and it admits clients again once others leave.
func TestLimitRespMaxClients(t *testing.T) {
	s := harness.Start(t)
	admin := dialRaw(t, s.RespAddr)
	io.WriteString(admin, "CONFIG SET maxclients 3\r\n")
	if got := admin.line(t); got != "+OK" {
		t.Fatalf("CONFIG SET maxclients: %q", got)
	}
	a, b := dialRaw(t, s.RespAddr), dialRaw(t, s.RespAddr)
	for _, c := range []*rawConn{a, b} {
		io.WriteString(c, "PING\r\n")
		if got := c.line(t); got != "+PONG" {
			t.Fatalf("PING within maxclients: %q", got)
		}
	}
	over := dialRaw(t, s.RespAddr)
	if got := over.line(t); got != "-ERR max number of clients reached" {
		t.Fatalf("client over maxclients: %q", got)
	}
	if !over.closed(5 * time.Second) {
		t.Fatal("client over maxclients not closed")
	}
	a.Close()
	eventually(t, 10*time.Second, "a client is admitted once another leaves", func() bool {
		c := dialRaw(t, s.RespAddr)
		defer c.Close()
		io.WriteString(c, "PING\r\n")
		l, err := c.r.ReadString('\n')
		return err == nil && l == "+PONG\r\n"
	})
}

// Ensure that CONFIG timeout (Redis's idle timeout, off by default as in
// Redis) also closes a client that sent half a request and stalled, well
// before the frame timeout (60 s by default).
func TestLimitRespIdleTimeoutClosesStalledRequest(t *testing.T) {
	s := harness.Start(t)
	rc := connectRedis(t, s)
	if err := rc.ConfigSet(t.Context(), "timeout", "1").Err(); err != nil {
		t.Fatal(err)
	}
	c := dialRaw(t, s.RespAddr)
	io.WriteString(c, "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$10\r\nabc")
	start := time.Now()
	if !c.closed(10 * time.Second) {
		t.Fatal("a stalled half request held its connection for 10 s with timeout 1")
	}
	if took := time.Since(start); took < 500*time.Millisecond {
		t.Fatalf("closed after %s, before the 1 s timeout", took)
	}
}

// Ensure that the memory a connection holds follows what it sent, not
// what it declared: 40 clients each announcing a 512 MB argument and
// sending 64 KiB of it leave the server's resident memory far below what
// the declarations add up to (20 GB).
func TestLimitRespDeclaredLengthsDoNotAllocate(t *testing.T) {
	s := harness.Start(t)
	before := residentBytes(t, s)
	chunk := bytes.Repeat([]byte("z"), 64<<10)
	var conns []*rawConn
	for range 40 {
		c := dialRaw(t, s.RespAddr)
		io.WriteString(c, "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$536870912\r\n")
		c.Write(chunk)
		conns = append(conns, c)
	}
	// Every connection is still open and holds its partial request.
	rc := connectRedis(t, s)
	if err := rc.Ping(t.Context()).Err(); err != nil {
		t.Fatal(err)
	}
	after := residentBytes(t, s)
	t.Logf("resident memory %d MiB before, %d MiB with 40 stalled 512 MB declarations", before>>20, after>>20)
	if after-before > 256<<20 {
		t.Fatalf("resident memory grew by %d MiB for 40 stalled clients holding 64 KiB each", (after-before)>>20)
	}
	for _, c := range conns {
		c.Close()
	}
}

// residentBytes reads the server's resident memory from /metrics.
func residentBytes(t testing.TB, s *harness.Server) int64 {
	t.Helper()
	for _, line := range strings.Split(scrapeMetrics(t, s), "\n") {
		if v, ok := strings.CutPrefix(line, "process_resident_memory_bytes "); ok {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				t.Fatalf("metrics line %q", line)
			}
			return int64(f)
		}
	}
	t.Fatal("/metrics has no process_resident_memory_bytes")
	return 0
}

// opMsgFrame builds an OP_MSG with a command body and, when docs is not
// empty, one document sequence named ident.
func opMsgFrame(requestID int32, body []byte, ident string, docs [][]byte) []byte {
	var b []byte
	b = binary.LittleEndian.AppendUint32(b, 0) // length, set below
	b = binary.LittleEndian.AppendUint32(b, uint32(requestID))
	b = binary.LittleEndian.AppendUint32(b, 0)
	b = binary.LittleEndian.AppendUint32(b, 2013)
	b = binary.LittleEndian.AppendUint32(b, 0) // flags
	b = append(b, 0)
	b = append(b, body...)
	if len(docs) > 0 {
		size := 4 + len(ident) + 1
		for _, d := range docs {
			size += len(d)
		}
		b = append(b, 1)
		b = binary.LittleEndian.AppendUint32(b, uint32(size))
		b = append(b, ident...)
		b = append(b, 0)
		for _, d := range docs {
			b = append(b, d...)
		}
	}
	binary.LittleEndian.PutUint32(b, uint32(len(b)))
	return b
}

// readOpMsgReply reads one OP_MSG reply and returns its body.
func (c *rawConn) readOpMsgReply(t testing.TB) bson.Raw {
	t.Helper()
	var hdr [16]byte
	if _, err := io.ReadFull(c.r, hdr[:]); err != nil {
		t.Fatalf("read reply: %v", err)
	}
	rest := make([]byte, binary.LittleEndian.Uint32(hdr[:])-16)
	if _, err := io.ReadFull(c.r, rest); err != nil {
		t.Fatalf("read reply: %v", err)
	}
	return bson.Raw(rest[5:])
}

func marshal(t testing.TB, v any) []byte {
	t.Helper()
	b, err := bson.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Ensure MongoDB's size limits with MongoDB's errors: a document over
// maxBsonObjectSize is refused as a write error (10334), a command body
// over it is refused with BSONObjectTooLarge, a document of exactly the
// limit is stored, and a message over maxMessageSizeBytes closes the
// connection; the server serves on.
func TestMongoSizeLimits(t *testing.T) {
	s := harness.Start(t)
	cl := connectMongo(t, s)
	ctx := t.Context()
	const maxDoc = 16 * 1024 * 1024
	doc := func(size int) []byte {
		// {_id: 1, p: <binary>}: 4 + (1+4+4) _id + (1+2+4+1) binary header + payload + 1.
		payload := make([]byte, size-4-9-8-1)
		return marshal(t, bson.D{{Key: "_id", Value: int32(size)}, {Key: "p", Value: bson.Binary{Data: payload}}})
	}
	if got := len(doc(maxDoc)); got != maxDoc {
		t.Fatalf("test document is %d bytes, want %d", got, maxDoc)
	}
	insert := marshal(t, bson.D{{Key: "insert", Value: "big"}, {Key: "$db", Value: "limits"}})

	c := dialRaw(t, s.MongoAddr)
	c.Write(opMsgFrame(1, insert, "documents", [][]byte{doc(maxDoc + 1)}))
	reply := c.readOpMsgReply(t)
	we, err := reply.LookupErr("writeErrors", "0", "code")
	if err != nil || we.AsInt64() != 10334 {
		t.Fatalf("document of maxBsonObjectSize+1: %v", reply)
	}
	c.Write(opMsgFrame(2, insert, "documents", [][]byte{doc(maxDoc)}))
	if reply := c.readOpMsgReply(t); reply.Lookup("n").AsInt64() != 1 {
		t.Fatalf("document of exactly maxBsonObjectSize: %v", reply)
	}

	// A command body over the limit (plus MongoDB's 16 KiB of slack).
	body := marshal(t, bson.D{{Key: "insert", Value: "big"}, {Key: "$db", Value: "limits"},
		{Key: "documents", Value: bson.A{bson.Raw(doc(maxDoc + 32<<10))}}})
	c.Write(opMsgFrame(3, body, "", nil))
	if reply := c.readOpMsgReply(t); reply.Lookup("code").AsInt64() != 10334 ||
		reply.Lookup("codeName").StringValue() != "BSONObjectTooLarge" {
		t.Fatalf("command body over the limit: %v", reply)
	}

	over := dialRaw(t, s.MongoAddr)
	hdr := make([]byte, 16)
	binary.LittleEndian.PutUint32(hdr, 48_000_001)
	binary.LittleEndian.PutUint32(hdr[12:], 2013)
	over.Write(hdr)
	if !over.closed(5 * time.Second) {
		t.Fatal("a message over maxMessageSizeBytes did not close the connection")
	}
	if n, err := cl.Database("limits").Collection("big").CountDocuments(ctx, bson.D{}); err != nil || n != 1 {
		t.Fatalf("after the limits: count %d, %v", n, err)
	}
}

// Ensure that garbage on both ports gets each protocol's error or a closed
// connection, never a crash: 40 connections of random bytes per port, then
// both protocols still serve.
func TestLimitGarbageOnBothPorts(t *testing.T) {
	s := harness.Start(t)
	var wg sync.WaitGroup
	for _, addr := range []string{s.RespAddr, s.MongoAddr} {
		for i := range 40 {
			wg.Go(func() {
				garbage := make([]byte, 16+i*97)
				rand.Read(garbage)
				if addr == s.MongoAddr && i%2 == 0 {
					// A plausible header so that the body reaches the parser.
					binary.LittleEndian.PutUint32(garbage, uint32(len(garbage)))
					binary.LittleEndian.PutUint32(garbage[12:], 2013)
				}
				nc, err := net.DialTimeout("tcp", addr, 5*time.Second)
				if err != nil {
					t.Error(err)
					return
				}
				defer nc.Close()
				nc.SetDeadline(time.Now().Add(3 * time.Second))
				nc.Write(garbage)
				io.Copy(io.Discard, nc) // until the server closes or the deadline
			})
		}
	}
	wg.Wait()
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	if err := connectRedis(t, s).Set(ctx, "still", "serving", 0).Err(); err != nil {
		t.Fatalf("RESP after garbage: %v", err)
	}
	if _, err := connectMongo(t, s).Database("g").Collection("c").InsertOne(ctx, bson.D{{Key: "ok", Value: true}}); err != nil {
		t.Fatalf("MongoDB after garbage: %v", err)
	}
}

// Ensure --frame-timeout on both protocols: a client that sends part of a
// request or message and stalls is closed once the timeout has passed
// since its first byte, an idle connection (between requests) stays open
// however long it waits, a client blocked in BLPOP longer than the timeout
// is served normally, and the server keeps serving everyone else. (A
// panicking handler cannot be reached from outside the process; the wire
// packages' tests inject one: TestCommandPanicIsAnswered,
// TestPanicIsRecoveredOnce and TestPanicOutsideHandlerIsRecovered.)
func TestLimitFrameTimeoutBothProtocols(t *testing.T) {
	s := harness.Start(t, "--frame-timeout", "1s")
	respIdle := dialRaw(t, s.RespAddr)
	mongoIdle := dialRaw(t, s.MongoAddr)
	ping := marshal(t, bson.D{{Key: "ping", Value: 1}, {Key: "$db", Value: "admin"}})
	frame := opMsgFrame(1, ping, "", nil)
	t.Run("stalled", func(t *testing.T) {
		for _, tt := range []struct {
			name, addr string
			send       []byte
		}{
			{"resp inside a bulk", s.RespAddr, []byte("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$10\r\nabc")},
			{"resp inline", s.RespAddr, []byte("PING")},
			{"mongo inside the header", s.MongoAddr, frame[:9]},
			{"mongo inside the body", s.MongoAddr, frame[:len(frame)-4]},
		} {
			t.Run(tt.name, func(t *testing.T) {
				t.Parallel()
				c := dialRaw(t, tt.addr)
				start := time.Now()
				if _, err := c.Write(tt.send); err != nil {
					t.Fatal(err)
				}
				if !c.closed(10 * time.Second) {
					t.Fatal("a stalled partial request held its connection for 10 s with --frame-timeout 1s")
				}
				if took := time.Since(start); took < 900*time.Millisecond {
					t.Fatalf("closed after %s, before the frame timeout", took)
				}
			})
		}
	})
	t.Run("blocked", func(t *testing.T) {
		c := dialRaw(t, s.RespAddr)
		start := time.Now()
		io.WriteString(c, "BLPOP nokey 2\r\n")
		if got := c.line(t); got != "*-1" {
			t.Fatalf("BLPOP: %q", got)
		}
		if took := time.Since(start); took < 1900*time.Millisecond {
			t.Fatalf("BLPOP returned after %s, before its 2 s timeout", took)
		}
		io.WriteString(c, "PING\r\n")
		if got := c.line(t); got != "+PONG" {
			t.Fatalf("PING after BLPOP: %q", got)
		}
	})
	io.WriteString(respIdle, "PING\r\n")
	if got := respIdle.line(t); got != "+PONG" {
		t.Fatalf("idle RESP client: %q", got)
	}
	mongoIdle.Write(frame)
	if reply := mongoIdle.readOpMsgReply(t); reply.Lookup("ok").Double() != 1 {
		t.Fatalf("idle MongoDB client: %v", reply)
	}
	logs := s.Logs()
	for _, want := range []string{
		"resp: closing client that did not finish its request within the frame timeout",
		"client did not send the rest of its message within the frame timeout, ending connection",
	} {
		if !strings.Contains(logs, want) {
			t.Errorf("log has no %q", want)
		}
	}
}

// Ensure the connection limits of both protocols, set by flags: past
// --resp-max-clients a client gets Redis's error and is closed; past
// --mongo-max-connections a connection is closed and the refusal logged in
// MongoDB's words, and serverStatus reports no connection available; both
// admit again once a client leaves.
func TestLimitMaxConnectionsBothProtocols(t *testing.T) {
	s := harness.Start(t, "--mongo-max-connections", "2", "--resp-max-clients", "2")
	r1, r2 := dialRaw(t, s.RespAddr), dialRaw(t, s.RespAddr)
	for _, c := range []*rawConn{r1, r2} {
		io.WriteString(c, "PING\r\n")
		if got := c.line(t); got != "+PONG" {
			t.Fatalf("PING within maxclients: %q", got)
		}
	}
	over := dialRaw(t, s.RespAddr)
	if got := over.line(t); got != "-ERR max number of clients reached" {
		t.Fatalf("client over --resp-max-clients: %q", got)
	}
	if !over.closed(5 * time.Second) {
		t.Fatal("client over --resp-max-clients not closed")
	}
	io.WriteString(r1, "CONFIG GET maxclients\r\n")
	for _, want := range []string{"*2", "$10", "maxclients", "$1", "2"} {
		if got := r1.line(t); got != want {
			t.Fatalf("CONFIG GET maxclients: %q, want %q", got, want)
		}
	}

	var id int32
	ping := func(c *rawConn) bson.Raw {
		id++
		c.Write(opMsgFrame(id, marshal(t, bson.D{{Key: "ping", Value: 1}, {Key: "$db", Value: "admin"}}), "", nil))
		return c.readOpMsgReply(t)
	}
	m1, m2 := dialRaw(t, s.MongoAddr), dialRaw(t, s.MongoAddr)
	ping(m1)
	ping(m2)
	mover := dialRaw(t, s.MongoAddr)
	mover.Write(opMsgFrame(99, marshal(t, bson.D{{Key: "ping", Value: 1}, {Key: "$db", Value: "admin"}}), "", nil))
	if !mover.closed(5 * time.Second) {
		t.Fatal("connection over --mongo-max-connections not closed")
	}
	id++
	m1.Write(opMsgFrame(id, marshal(t, bson.D{{Key: "serverStatus", Value: 1}, {Key: "$db", Value: "admin"}}), "", nil))
	conns := m1.readOpMsgReply(t).Lookup("connections").Document()
	if conns.Lookup("current").Int32() != 2 || conns.Lookup("available").Int32() != 0 {
		t.Fatalf("serverStatus connections %v, want current 2 available 0", conns)
	}
	if !strings.Contains(s.Logs(), "Connection refused because there are too many open connections") {
		t.Error("the refused MongoDB connection is not logged")
	}

	r2.Close()
	m2.Close()
	eventually(t, 10*time.Second, "both protocols admit a client once another leaves", func() bool {
		rc := dialRaw(t, s.RespAddr)
		defer rc.Close()
		io.WriteString(rc, "PING\r\n")
		l, err := rc.r.ReadString('\n')
		if err != nil || l != "+PONG\r\n" {
			return false
		}
		mc := dialRaw(t, s.MongoAddr)
		defer mc.Close()
		mc.SetDeadline(time.Now().Add(2 * time.Second))
		if _, err := mc.Write(opMsgFrame(1, marshal(t, bson.D{{Key: "ping", Value: 1}, {Key: "$db", Value: "admin"}}), "", nil)); err != nil {
			return false
		}
		var hdr [16]byte
		_, err = io.ReadFull(mc.r, hdr[:])
		return err == nil
	})
}

// Ensure client-query-buffer-limit: a RESP client whose pending request
// outgrows it is closed, as Redis does, and logged in Redis's words; the
// server serves on.
func TestLimitRespQueryBufferLimit(t *testing.T) {
	s := harness.Start(t)
	rc := connectRedis(t, s)
	if err := rc.ConfigSet(t.Context(), "client-query-buffer-limit", "1mb").Err(); err != nil {
		t.Fatal(err)
	}
	c := dialRaw(t, s.RespAddr)
	io.WriteString(c, "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$2000000\r\n")
	c.Write(make([]byte, 256<<10)) // may fail once the server closed: that is the point
	if !c.closed(5 * time.Second) {
		t.Fatal("a request over client-query-buffer-limit did not close the connection")
	}
	if err := rc.Set(t.Context(), "k", strings.Repeat("v", 512<<10), 0).Err(); err != nil {
		t.Fatalf("a request under the limit: %v", err)
	}
	if !strings.Contains(s.Logs(), "Closing client that reached max query buffer length") {
		t.Error("the closed client is not logged")
	}
}
