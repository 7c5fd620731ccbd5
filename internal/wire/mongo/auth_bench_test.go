package mongo

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb"
	"github.com/mayfly/mayfly/internal/storage"
)

// BenchmarkAuthFindByID measures what access control adds to the request
// path of a find by _id: the same requests without access control (off)
// and as an authenticated readWrite user (on).
func BenchmarkAuthFindByID(b *testing.B) {
	for _, auth := range []bool{false, true} {
		name := "off"
		if auth {
			name = "on"
		}
		b.Run(name, func(b *testing.B) { benchFindByID(b, auth) })
	}
}

func benchFindByID(b *testing.B, auth bool) {
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
	s := NewServer(Options{DB: db, Logger: slog.New(slog.DiscardHandler), ObserveLatency: func(time.Duration) {}, Auth: auth})
	c := newConn(s, discardConn{}, 1)
	run := func(cmd bson.D) {
		body, err := bson.Marshal(cmd)
		if err != nil {
			b.Fatal(err)
		}
		if !c.process(newMsg(0).kind0(body).frame(1)) {
			b.Fatal("connection closed")
		}
	}
	// The first user, through the localhost exception.
	run(bson.D{{Key: "createUser", Value: "app"}, {Key: "pwd", Value: "pw"},
		{Key: "roles", Value: bson.A{bson.D{{Key: "role", Value: "readWrite"}, {Key: "db", Value: "bench"}}}}, {Key: "$db", Value: "admin"}})
	if auth {
		u, err := s.resolveUser(context.Background(), userName{"app", "admin"})
		if err != nil || u == nil {
			b.Fatalf("user: %v %v", u, err)
		}
		c.user = u
	}
	const n = 10000
	for i := range int64(n) {
		raw, _ := bson.Marshal(bson.D{{Key: "_id", Value: i}, {Key: "email", Value: "user@example.com"}, {Key: "n", Value: int64(0)}})
		body, _ := bson.Marshal(bson.D{{Key: "insert", Value: "doc"}, {Key: "$db", Value: "bench"}})
		if !c.process(newMsg(0).kind0(body).kind1("documents", raw).frame(int32(i))) {
			b.Fatal("connection closed")
		}
	}
	if n, _ := db.Count(context.Background(), "bench", "doc", docdb.CountRequest{}); n != 10000 {
		b.Fatalf("inserted %d documents (refused?)", n)
	}
	lsid := bson.D{{Key: "id", Value: bson.Binary{Subtype: 4, Data: make([]byte, 16)}}}
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
}

// BenchmarkAuthorize measures the privilege check alone, for a find by _id
// of an authenticated readWrite user: what access control adds to each
// command once the connection's privileges are resolved.
func BenchmarkAuthorize(b *testing.B) {
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
	s := NewServer(Options{DB: db, Logger: slog.New(slog.DiscardHandler), Auth: true})
	c := newConn(s, discardConn{}, 1)
	ctx := context.Background()
	raw, _ := bson.Marshal(bson.D{{Key: "createUser", Value: "app"}, {Key: "pwd", Value: "pw"}, {Key: "roles", Value: bson.A{"readWrite"}}})
	if _, err := msgCreateUser(ctx, c, &request{c: c, db: "bench", name: "createUser", cmd: raw}); err != nil {
		b.Fatal(err)
	}
	if c.user, err = s.resolveUser(ctx, userName{"app", "bench"}); err != nil || c.user == nil {
		b.Fatalf("user: %v", err)
	}
	cmd, _ := bson.Marshal(bson.D{{Key: "find", Value: "doc"}, {Key: "filter", Value: bson.D{{Key: "_id", Value: int64(7)}}},
		{Key: "limit", Value: int64(1)}, {Key: "singleBatch", Value: true}, {Key: "$db", Value: "bench"}})
	req := &request{c: c, db: "bench", name: "find", cmd: cmd}
	find := commandTable["find"]
	b.ReportAllocs()
	start := cpuTime(b)
	for b.Loop() {
		if err := c.authorize(ctx, find, req); err != nil {
			b.Fatal(err)
		}
	}
	reportCPU(b, start)
}
