package mongo

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"log/slog"
	"net"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb"
	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
	"github.com/mayfly/mayfly/internal/storage"
)

// This file drives the server over raw TCP with hand-built messages,
// malformed ones included, and with two commands that exist only in the
// test binary: one that panics and one that blocks until released.

// gate is a blocking test command's rendezvous.
type gate struct {
	entered   chan struct{}
	release   chan struct{}
	cancelled chan struct{}
}

var gates sync.Map // name -> *gate

func newGate(name string) *gate {
	g := &gate{entered: make(chan struct{}), release: make(chan struct{}), cancelled: make(chan struct{})}
	gates.Store(name, g)
	return g
}

func init() {
	commandTable["mayflyTestPanic"] = &command{
		help: "test only: panics",
		handler: func(context.Context, *conn, *request) (bson.D, error) {
			var cmds []bson.D
			return cmds[len(cmds)], nil // an index out of range: the kind of bug recover must contain
		},
	}
	commandTable["mayflyTestBlock"] = &command{
		help: "test only: blocks until its gate is released or its context ends",
		handler: func(ctx context.Context, _ *conn, req *request) (bson.D, error) {
			v, _ := gates.Load(req.first().StringValue())
			g := v.(*gate)
			close(g.entered)
			select {
			case <-g.release:
				return bson.D{{Key: "released", Value: true}}, nil
			case <-ctx.Done():
				close(g.cancelled)
				return nil, ctx.Err()
			}
		},
	}
	commandNames = append(commandNames, "mayflyTestPanic", "mayflyTestBlock")
	slices.Sort(commandNames)
}

// rawServer starts a Server on 127.0.0.1:0 and returns it with its address.
func rawServer(t *testing.T, edit ...func(*Options)) (*Server, string, *syncBuffer) {
	t.Helper()
	st, err := storage.Open(storage.Options{InMemory: true, Dir: "mem", Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	db, err := docdb.Open(docdb.Options{Store: st, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	logs := &syncBuffer{}
	opts := Options{DB: db, Logger: slog.New(slog.NewTextHandler(logs, nil))}
	for _, e := range edit {
		e(&opts)
	}
	s := NewServer(opts)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.Serve(ln) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		s.Shutdown(ctx)
		<-done
		db.Close()
		st.Close()
	})
	return s, ln.Addr().String(), logs
}

type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

type rawConn struct {
	t  *testing.T
	nc net.Conn
	r  *bufio.Reader
	id int32
}

func dialRaw(t *testing.T, addr string) *rawConn {
	t.Helper()
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	return &rawConn{t: t, nc: nc, r: bufio.NewReader(nc)}
}

func (rc *rawConn) send(b []byte) {
	rc.t.Helper()
	if _, err := rc.nc.Write(b); err != nil {
		rc.t.Fatalf("write: %v", err)
	}
}

// recv reads the next message, failing the test after 10 s.
func (rc *rawConn) recv() []byte {
	rc.t.Helper()
	rc.nc.SetReadDeadline(time.Now().Add(10 * time.Second))
	frame, err := readFrame(rc.r)
	if err != nil {
		rc.t.Fatalf("read: %v", err)
	}
	return frame
}

// expectClosed checks that the server closes the connection without
// sending anything.
func (rc *rawConn) expectClosed() {
	rc.t.Helper()
	rc.nc.SetReadDeadline(time.Now().Add(10 * time.Second))
	frame, err := readFrame(rc.r)
	if err == nil {
		rc.t.Fatalf("got a reply %x, want the connection closed", frame)
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		rc.t.Fatal("connection still open")
	}
}

// msg builds an OP_MSG with the command as its body.
func (rc *rawConn) msg(flags uint32, cmd bson.D) []byte {
	rc.id++
	return newMsg(flags).kind0(mustMarshal(rc.t, cmd)).frame(rc.id)
}

// reply decodes an OP_MSG reply to the last request and returns its body.
func (rc *rawConn) reply() bson.Raw {
	rc.t.Helper()
	frame := rc.recv()
	h := readHeader(frame)
	if h.opCode != opCodeMsg || h.responseTo != rc.id {
		rc.t.Fatalf("reply opcode %v responseTo %d, want OP_MSG to %d", h.opCode, h.responseTo, rc.id)
	}
	m, perr := decodeOpMsg(frame)
	if perr != nil {
		rc.t.Fatalf("reply: %v", perr)
	}
	return m.body()
}

// ping checks that the connection still serves commands.
func (rc *rawConn) ping() {
	rc.t.Helper()
	rc.send(rc.msg(0, bson.D{{Key: "ping", Value: 1}, {Key: "$db", Value: "admin"}}))
	if ok := rc.reply().Lookup("ok").Double(); ok != 1 {
		rc.t.Fatal("ping failed")
	}
}

func wantCode(t *testing.T, body bson.Raw, code mongoerr.Code, msg string) {
	t.Helper()
	if body.Lookup("ok").Double() != 0 || mongoerr.Code(body.Lookup("code").Int32()) != code ||
		body.Lookup("codeName").StringValue() != code.Name() || (msg != "" && body.Lookup("errmsg").StringValue() != msg) {
		t.Fatalf("reply %v, want code %d %q", body, code, msg)
	}
}

func header(length int32, op opCode, id int32) []byte {
	return appendHeader(nil, msgHeader{length: length, requestID: id, opCode: op})
}

// Ensure that every kind of malformed input gets MongoDB's answer (an
// error reply, silence or a closed connection) and that the server keeps
// serving the connection where MongoDB does, and every other client.
func TestMalformedMessages(t *testing.T) {
	_, addr, _ := rawServer(t)
	okBody := func(t *testing.T) []byte {
		return mustMarshal(t, bson.D{{Key: "ping", Value: 1}, {Key: "$db", Value: "admin"}})
	}
	badString := []byte{0x0f, 0, 0, 0, 0x02, 'a', 0, 0x03, 0, 0, 0, 'x', 'y', 'z', 0}

	cases := map[string]func(t *testing.T, rc *rawConn){
		"length over max": func(t *testing.T, rc *rawConn) {
			rc.send(header(MaxMessageSizeBytes+1, opCodeMsg, 1))
			rc.expectClosed()
		},
		"length under header": func(t *testing.T, rc *rawConn) {
			rc.send(header(10, opCodeMsg, 1))
			rc.expectClosed()
		},
		"truncated frame": func(t *testing.T, rc *rawConn) {
			frame := rc.msg(0, bson.D{{Key: "ping", Value: 1}, {Key: "$db", Value: "admin"}})
			rc.send(frame[:len(frame)-5])
			rc.nc.(*net.TCPConn).CloseWrite()
			rc.expectClosed()
		},
		"unknown opcode": func(t *testing.T, rc *rawConn) {
			rc.send(append(header(20, 9999, 1), 1, 2, 3, 4))
			rc.ping()
		},
		"legacy OP_INSERT": func(t *testing.T, rc *rawConn) {
			b := append(header(0, opCodeInsert, 1), 0, 0, 0, 0, 'a', '.', 'b', 0)
			b = append(b, okBody(t)...)
			setLength(b)
			rc.send(b)
			rc.ping()
		},
		"invalid BSON": func(t *testing.T, rc *rawConn) {
			rc.id++
			rc.send(newMsg(0).kind0(badString).frame(rc.id))
			wantCode(t, rc.reply(), mongoerr.InvalidBSON, "Invalid BSON: string is not terminated by a null byte in field 'a'")
			rc.ping()
		},
		"invalid BSON with moreToCome": func(t *testing.T, rc *rawConn) {
			rc.send(newMsg(flagMoreToCome).kind0(badString).frame(50))
			rc.ping()
		},
		"unknown section kind": func(t *testing.T, rc *rawConn) {
			rc.id++
			rc.send(newMsg(0).kind0(okBody(t)).raw(7).frame(rc.id))
			wantCode(t, rc.reply(), 40432, "Unknown section kind 7")
			rc.ping()
		},
		"bad checksum": func(t *testing.T, rc *rawConn) {
			f := newMsg(flagChecksumPresent).kind0(okBody(t)).frame(1)
			f[len(f)-1] ^= 1
			rc.send(f)
			rc.expectClosed()
		},
		"illegal flag": func(t *testing.T, rc *rawConn) {
			rc.send(newMsg(1 << 3).kind0(okBody(t)).frame(1))
			rc.expectClosed()
		},
		"missing $db": func(t *testing.T, rc *rawConn) {
			rc.send(rc.msg(0, bson.D{{Key: "ping", Value: 1}}))
			wantCode(t, rc.reply(), 40571, "OP_MSG requests require a $db argument")
			rc.ping()
		},
		"document over 16 MiB": func(t *testing.T, rc *rawConn) {
			n := maxBSONInternalSize + 1
			doc := make([]byte, 0, n)
			doc = binary.LittleEndian.AppendUint32(doc, uint32(n))
			doc = append(doc, 0x02, 'x', 0)
			doc = binary.LittleEndian.AppendUint32(doc, uint32(n-12))
			doc = append(doc, make([]byte, n-13)...)
			doc = append(doc, 0, 0)
			rc.id++
			rc.send(newMsg(0).kind0(doc).frame(rc.id))
			wantCode(t, rc.reply(), mongoerr.BSONObjectTooLarge, "BSONObj size: 16793601 (0x1004001) is invalid. Size must be between 0 and 16793600(16MB) First element: x")
			rc.ping()
		},
		"checksum present": func(t *testing.T, rc *rawConn) {
			rc.id++
			rc.send(newMsg(flagChecksumPresent).kind0(okBody(t)).frame(rc.id))
			frame := rc.recv()
			m, perr := decodeOpMsg(frame)
			if perr != nil || m.flags&flagChecksumPresent == 0 {
				t.Fatalf("reply %x: %v", frame, perr)
			}
			if crc32.Checksum(frame[:len(frame)-4], castagnoli) != m.checksum {
				t.Fatal("reply checksum wrong")
			}
		},
		"moreToCome": func(t *testing.T, rc *rawConn) {
			rc.send(rc.msg(flagMoreToCome, bson.D{{Key: "ping", Value: 1}, {Key: "$db", Value: "admin"}}))
			rc.ping()
		},
		"OP_QUERY isMaster": func(t *testing.T, rc *rawConn) {
			rc.send(opQueryFrame(t, 11, "admin.$cmd", bson.D{{Key: "isMaster", Value: 1}}))
			r := wantOpReply(t, rc, 11, replyAwaitCapable)
			if !r.Lookup("ismaster").Boolean() || r.Lookup("maxWireVersion").Int32() != 21 {
				t.Fatalf("isMaster reply %v", r)
			}
			rc.ping()
		},
		"OP_QUERY wrapped hello": func(t *testing.T, rc *rawConn) {
			rc.send(opQueryFrame(t, 12, "admin.$cmd", bson.D{{Key: "$query", Value: bson.D{{Key: "hello", Value: 1}}}}))
			r := wantOpReply(t, rc, 12, replyAwaitCapable)
			if !r.Lookup("isWritablePrimary").Boolean() {
				t.Fatalf("hello reply %v", r)
			}
		},
		"OP_QUERY other command": func(t *testing.T, rc *rawConn) {
			rc.send(opQueryFrame(t, 13, "test.$cmd", bson.D{{Key: "find", Value: "c"}}))
			wantCode(t, wantOpReply(t, rc, 13, replyAwaitCapable), mongoerr.UnsupportedOpQueryCommand,
				"Unsupported OP_QUERY command: find. The client driver may require an upgrade. For more details see https://dochub.mongodb.org/core/legacy-opcode-removal")
		},
		"OP_QUERY collection": func(t *testing.T, rc *rawConn) {
			rc.send(opQueryFrame(t, 14, "test.c", bson.D{}))
			r := wantOpReply(t, rc, 14, replyQueryFailure)
			if r.Lookup("code").Int32() != 5739101 || !strings.HasPrefix(r.Lookup("$err").StringValue(), "OP_QUERY is no longer supported.") {
				t.Fatalf("reply %v", r)
			}
			rc.ping()
		},
		"OP_QUERY bad BSON": func(t *testing.T, rc *rawConn) {
			b := append(header(0, opCodeQuery, 15), 0, 0, 0, 0)
			b = append(b, "admin.$cmd"...)
			b = append(b, 0, 0, 0, 0, 0, 1, 0, 0, 0)
			b = append(b, badString...)
			setLength(b)
			rc.send(b)
			r := wantOpReply(t, rc, 15, replyQueryFailure)
			if r.Lookup("code").Int32() != int32(mongoerr.InvalidBSON) {
				t.Fatalf("reply %v", r)
			}
			rc.ping()
		},
		"OP_COMPRESSED noop": func(t *testing.T, rc *rawConn) {
			inner := rc.msg(0, bson.D{{Key: "ping", Value: 1}, {Key: "$db", Value: "admin"}})
			rc.send(compressedFrame(rc.id, compressorNoop, inner))
			if rc.reply().Lookup("ok").Double() != 1 {
				t.Fatal("noop compressed ping failed")
			}
		},
		"OP_COMPRESSED snappy": func(t *testing.T, rc *rawConn) {
			inner := rc.msg(0, bson.D{{Key: "ping", Value: 1}, {Key: "$db", Value: "admin"}})
			rc.send(compressedFrame(rc.id, 1, inner))
			wantCode(t, rc.reply(), mongoerr.InternalError, "Compression algorithm specified in message is not available")
			rc.ping()
		},
		"inserted document over 16 MiB": func(t *testing.T, rc *rawConn) {
			// Within the wire limit (16 MiB + 16 KiB) but over the
			// storable one: a write error, not a failed command. (The
			// code is the document model's; MongoDB's is BadValue.)
			big := mustMarshal(t, bson.D{{Key: "_id", Value: 1}, {Key: "b", Value: strings.Repeat("x", MaxBSONObjectSize)}})
			body := mustMarshal(t, bson.D{{Key: "insert", Value: "c"}, {Key: "$db", Value: "test"}})
			rc.id++
			rc.send(newMsg(0).kind0(body).kind1("documents", big).frame(rc.id))
			r := rc.reply()
			we := r.Lookup("writeErrors").Array().Index(0).Document()
			if r.Lookup("ok").Double() != 1 || r.Lookup("n").Int32() != 0 || we.Lookup("index").Int32() != 0 ||
				we.Lookup("errmsg").StringValue() != fmt.Sprintf("object to insert too large. size in bytes: %d, max size: 16777216", len(big)) {
				t.Fatalf("reply %v", r)
			}
		},
		"empty command": func(t *testing.T, rc *rawConn) {
			rc.send(rc.msg(0, bson.D{{Key: "$db", Value: "admin"}}))
			wantCode(t, rc.reply(), mongoerr.CommandNotFound, "no such command: '$db'")
		},
	}
	for name, fn := range cases {
		t.Run(name, func(t *testing.T) {
			rc := dialRaw(t, addr)
			fn(t, rc)
			// Every other client is still served.
			dialRaw(t, addr).ping()
		})
	}
}

func opQueryFrame(t *testing.T, id int32, ns string, query bson.D) []byte {
	b := append(header(0, opCodeQuery, id), 0, 0, 0, 0)
	b = append(append(b, ns...), 0)
	b = binary.LittleEndian.AppendUint32(b, 0)
	b = binary.LittleEndian.AppendUint32(b, uint32(0xffffffff))
	b = append(b, mustMarshal(t, query)...)
	setLength(b)
	return b
}

func compressedFrame(id int32, compressor byte, inner []byte) []byte {
	b := header(0, opCodeCompressed, id)
	b = binary.LittleEndian.AppendUint32(b, uint32(readHeader(inner).opCode))
	b = binary.LittleEndian.AppendUint32(b, uint32(len(inner)-headerLen))
	b = append(b, compressor)
	b = append(b, inner[headerLen:]...)
	setLength(b)
	return b
}

func wantOpReply(t *testing.T, rc *rawConn, responseTo int32, flags int32) bson.Raw {
	t.Helper()
	frame := rc.recv()
	r, perr := decodeOpReply(frame)
	if perr != nil {
		t.Fatalf("OP_REPLY: %v", perr)
	}
	if r.header.opCode != opCodeReply || r.header.responseTo != responseTo || r.flags != flags || len(r.documents) != 1 {
		t.Fatalf("OP_REPLY %+v, want responseTo %d flags %d", r, responseTo, flags)
	}
	return r.documents[0]
}

// Ensure that a handler's panic is answered with InternalError, logged
// with the command, and leaves the connection serving.
func TestPanicIsRecoveredOnce(t *testing.T) {
	_, addr, logs := rawServer(t)
	rc := dialRaw(t, addr)
	rc.send(rc.msg(0, bson.D{{Key: "mayflyTestPanic", Value: 1}, {Key: "$db", Value: "admin"}}))
	wantCode(t, rc.reply(), mongoerr.InternalError, "internal error while running command mayflyTestPanic")
	rc.ping()
	if l := logs.String(); !strings.Contains(l, "command panicked") || !strings.Contains(l, "mayflyTestPanic") {
		t.Fatalf("panic not logged: %s", l)
	}
}

// Ensure that Shutdown stops accepting, closes idle connections, lets the
// request in progress finish and send its reply, then returns.
func TestShutdownLetsRequestsFinish(t *testing.T) {
	s, addr, _ := rawServer(t)
	busy, idle := dialRaw(t, addr), dialRaw(t, addr)
	idle.ping()
	g := newGate(t.Name())
	busy.send(busy.msg(0, bson.D{{Key: "mayflyTestBlock", Value: t.Name()}, {Key: "$db", Value: "admin"}}))
	<-g.entered

	done := make(chan error, 1)
	go func() { done <- s.Shutdown(context.Background()) }()
	idle.expectClosed()
	if _, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
		t.Error("still accepting connections")
	}
	select {
	case err := <-done:
		t.Fatalf("Shutdown returned %v with a request in progress", err)
	default:
	}
	close(g.release)
	if !busy.reply().Lookup("released").Boolean() {
		t.Fatal("in-flight request lost its reply")
	}
	busy.expectClosed()
	if err := <-done; err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
}

// Ensure that Shutdown's deadline cancels the requests still running.
func TestShutdownDeadlineCancels(t *testing.T) {
	s, addr, _ := rawServer(t)
	rc := dialRaw(t, addr)
	g := newGate(t.Name())
	rc.send(rc.msg(0, bson.D{{Key: "mayflyTestBlock", Value: t.Name()}, {Key: "$db", Value: "admin"}}))
	<-g.entered
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if err := s.Shutdown(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Shutdown = %v", err)
	}
	<-g.cancelled
	rc.expectClosed()
}

// Ensure that a client's disconnect cancels its request's context.
func TestDisconnectCancelsRequest(t *testing.T) {
	_, addr, _ := rawServer(t)
	rc := dialRaw(t, addr)
	g := newGate(t.Name())
	rc.send(rc.msg(0, bson.D{{Key: "mayflyTestBlock", Value: t.Name()}, {Key: "$db", Value: "admin"}}))
	<-g.entered
	rc.nc.Close()
	select {
	case <-g.cancelled:
	case <-time.After(10 * time.Second):
		t.Fatal("request not cancelled after the client disconnected")
	}
}

func TestMaxTimeMSExpires(t *testing.T) {
	_, addr, _ := rawServer(t)
	rc := dialRaw(t, addr)
	newGate(t.Name())
	rc.send(rc.msg(0, bson.D{{Key: "mayflyTestBlock", Value: t.Name()}, {Key: "maxTimeMS", Value: 20}, {Key: "$db", Value: "admin"}}))
	wantCode(t, rc.reply(), mongoerr.MaxTimeMSExpired, "operation exceeded time limit")
	rc.ping()
}

func TestMaxConnections(t *testing.T) {
	s, addr, _ := rawServer(t, func(o *Options) { o.MaxConnections = 1 })
	first := dialRaw(t, addr)
	first.ping()
	dialRaw(t, addr).expectClosed()
	first.ping()
	if s.metrics.rejectedConns.Load() != 1 {
		t.Fatalf("rejected = %d", s.metrics.rejectedConns.Load())
	}
}

// BenchmarkRawPing measures one OP_MSG round trip through the connection
// loop, without a driver: the wire layer's own cost plus loopback TCP.
func BenchmarkRawPing(b *testing.B) {
	st, err := storage.Open(storage.Options{InMemory: true, Dir: "mem", Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	db, err := docdb.Open(docdb.Options{Store: st, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	s := NewServer(Options{DB: db, Logger: slog.New(slog.DiscardHandler)})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	go s.Serve(ln)
	defer s.Shutdown(context.Background())
	nc, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		b.Fatal(err)
	}
	defer nc.Close()
	body, _ := bson.Marshal(bson.D{{Key: "ping", Value: 1}, {Key: "$db", Value: "admin"}})
	frame := newMsg(0).kind0(body).frame(1)
	r := bufio.NewReader(nc)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := nc.Write(frame); err != nil {
			b.Fatal(err)
		}
		if _, err := readFrame(r); err != nil {
			b.Fatal(err)
		}
	}
}
