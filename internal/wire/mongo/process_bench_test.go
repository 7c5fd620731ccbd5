package mongo

import (
	"bytes"
	"encoding/binary"
	"log/slog"
	"net"
	"syscall"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb"
	"github.com/mayfly/mayfly/internal/storage"
)

// discardConn is a net.Conn whose writes go nowhere: it lets a benchmark
// run the server's request path (decode, dispatch, handler, reply
// encoding) without a socket.
type discardConn struct{ net.Conn }

func (discardConn) Write(p []byte) (int, error)      { return len(p), nil }
func (discardConn) RemoteAddr() net.Addr             { return &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 1} }
func (discardConn) LocalAddr() net.Addr              { return &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 2} }
func (discardConn) Close() error                     { return nil }
func (discardConn) SetDeadline(time.Time) error      { return nil }
func (discardConn) SetReadDeadline(time.Time) error  { return nil }
func (discardConn) SetWriteDeadline(time.Time) error { return nil }

// cpuTime returns the process's user and system CPU time.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU reports the CPU time per operation since start: on a shared
// machine it moves less than the wall time ns/op.
func reportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric(float64(cpuTime(b)-start)/float64(b.N), "cpu-ns/op")
}

// BenchmarkProcess measures the server's CPU cost of one request as the Go
// driver sends it (FindOne by _id, InsertOne) on a collection shaped like
// `mayfly bench doc`'s: a TTL index on expireAt and an index on email.
// The reply is encoded but not sent.
func BenchmarkProcess(b *testing.B) {
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
	s := NewServer(Options{DB: db, Logger: slog.New(slog.DiscardHandler), ObserveLatency: func(time.Duration) {}})
	c := newConn(s, discardConn{}, 1)
	lsid := bson.D{{Key: "id", Value: bson.Binary{Subtype: 4, Data: make([]byte, 16)}}}
	run := func(cmd bson.D, seq ...[]byte) {
		body, err := bson.Marshal(cmd)
		if err != nil {
			b.Fatal(err)
		}
		m := newMsg(0).kind0(body)
		if seq != nil {
			m = m.kind1("documents", seq...)
		}
		if !c.process(m.frame(1)) {
			b.Fatal("connection closed")
		}
	}
	run(bson.D{{Key: "createIndexes", Value: "doc"}, {Key: "indexes", Value: bson.A{
		bson.D{{Key: "key", Value: bson.D{{Key: "expireAt", Value: 1}}}, {Key: "name", Value: "expireAt_1"}, {Key: "expireAfterSeconds", Value: 0}},
		bson.D{{Key: "key", Value: bson.D{{Key: "email", Value: 1}}}, {Key: "name", Value: "email_1"}},
	}}, {Key: "$db", Value: "bench"}})
	expireAt := time.Now().Add(time.Hour)
	doc := func(i int64) []byte {
		raw, err := bson.Marshal(bson.D{
			{Key: "_id", Value: i}, {Key: "email", Value: "user@example.com"},
			{Key: "expireAt", Value: expireAt}, {Key: "n", Value: int64(0)}, {Key: "payload", Value: "dddddddddddddddddddddddddddddddd"},
		})
		if err != nil {
			b.Fatal(err)
		}
		return raw
	}
	insertFrame := func(i int64) []byte {
		body, _ := bson.Marshal(bson.D{{Key: "insert", Value: "doc"}, {Key: "ordered", Value: true}, {Key: "lsid", Value: lsid}, {Key: "$db", Value: "bench"}})
		return newMsg(0).kind0(body).kind1("documents", doc(i)).frame(int32(i))
	}
	const n = 10000
	var next int64
	for ; next < n; next++ {
		if !c.process(insertFrame(next)) {
			b.Fatal("connection closed")
		}
	}
	b.Run("find_id", func(b *testing.B) {
		frames := make([][]byte, 1024)
		for i := range frames {
			body, _ := bson.Marshal(bson.D{
				{Key: "find", Value: "doc"}, {Key: "filter", Value: bson.D{{Key: "_id", Value: int64(i * 7 % n)}}},
				{Key: "limit", Value: int64(1)}, {Key: "singleBatch", Value: true}, {Key: "lsid", Value: lsid}, {Key: "$db", Value: "bench"},
			})
			frames[i] = newMsg(0).kind0(body).frame(int32(i))
		}
		b.ReportAllocs()
		start := cpuTime(b)
		i := 0
		for b.Loop() {
			c.process(frames[i%len(frames)])
			i++
		}
		reportCPU(b, start)
	})
	b.Run("insert", func(b *testing.B) {
		// One frame, its _id rewritten in place for each insert.
		frame := insertFrame(0)
		at := bytes.Index(frame, []byte("_id\x00")) + 4
		b.ReportAllocs()
		start := cpuTime(b)
		for b.Loop() {
			binary.LittleEndian.PutUint64(frame[at:], uint64(next))
			next++
			c.process(frame)
		}
		reportCPU(b, start)
	})

}
