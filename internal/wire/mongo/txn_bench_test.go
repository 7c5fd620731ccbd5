package mongo

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	drv "go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/mayfly/mayfly/internal/docdb"
	"github.com/mayfly/mayfly/internal/storage"
)

// BenchmarkSessionCost measures the server's CPU cost of a plain insert
// without lsid, with lsid (the driver's implicit session), and as a
// retryable write (lsid and a new txnNumber each time, its reply stored
// with the write).
func BenchmarkSessionCost(b *testing.B) {
	for _, mode := range []string{"no_lsid", "lsid", "retryable"} {
		b.Run(mode, func(b *testing.B) {
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
			var i int64
			b.ReportAllocs()
			start := cpuTime(b)
			for b.Loop() {
				i++
				cmd := bson.D{{Key: "insert", Value: "doc"}, {Key: "ordered", Value: true}}
				switch mode {
				case "lsid":
					cmd = append(cmd, bson.E{Key: "lsid", Value: lsid})
				case "retryable":
					cmd = append(cmd, bson.E{Key: "lsid", Value: lsid}, bson.E{Key: "txnNumber", Value: i})
				}
				cmd = append(cmd, bson.E{Key: "$db", Value: "bench"})
				body, _ := bson.Marshal(cmd)
				doc, _ := bson.Marshal(bson.D{{Key: "_id", Value: i}, {Key: "email", Value: "user@example.com"}, {Key: "payload", Value: "dddddddddddddddddddddddddddddddd"}})
				if !c.process(newMsg(0).kind0(body).kind1("documents", doc).frame(int32(i))) {
					b.Fatal("connection closed")
				}
			}
			reportCPU(b, start)
		})
	}
}

// BenchmarkTransfer measures two-document transfer transactions
// (withTransaction: read the source, two $inc updates, commit) from 50
// concurrent clients through the Go driver, over 10,000 accounts (low
// contention) and over 4 hot accounts (high contention, where the driver
// retries the transactions that meet a WriteConflict).
func BenchmarkTransfer(b *testing.B) {
	for _, accounts := range []int{10000, 4} {
		b.Run(fmt.Sprintf("accounts=%d", accounts), func(b *testing.B) {
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
			cl, err := drv.Connect(options.Client().ApplyURI("mongodb://" + ln.Addr().String() + "/?directConnection=true").SetMaxPoolSize(64))
			if err != nil {
				b.Fatal(err)
			}
			defer cl.Disconnect(context.Background())
			coll := cl.Database("bank").Collection("acct")
			docs := make([]any, accounts)
			for i := range docs {
				docs[i] = bson.D{{Key: "_id", Value: int32(i)}, {Key: "balance", Value: int32(1 << 30)}}
			}
			if _, err := coll.InsertMany(context.Background(), docs); err != nil {
				b.Fatal(err)
			}
			var attempts, done atomic.Int64
			b.SetParallelism(25) // 50 clients on 2 cores
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				sess, err := cl.StartSession()
				if err != nil {
					b.Error(err)
					return
				}
				defer sess.EndSession(context.Background())
				rng := rand.New(rand.NewPCG(rand.Uint64(), 1))
				for pb.Next() {
					from := int32(rng.IntN(accounts))
					to := (from + 1 + int32(rng.IntN(accounts-1))) % int32(accounts)
					_, err := sess.WithTransaction(context.Background(), func(ctx context.Context) (any, error) {
						attempts.Add(1)
						if err := coll.FindOne(ctx, bson.D{{Key: "_id", Value: from}}).Err(); err != nil {
							return nil, err
						}
						if _, err := coll.UpdateOne(ctx, bson.D{{Key: "_id", Value: from}}, bson.D{{Key: "$inc", Value: bson.D{{Key: "balance", Value: int32(-1)}}}}); err != nil {
							return nil, err
						}
						_, err := coll.UpdateOne(ctx, bson.D{{Key: "_id", Value: to}}, bson.D{{Key: "$inc", Value: bson.D{{Key: "balance", Value: int32(1)}}}})
						return nil, err
					})
					if err != nil {
						b.Error(err)
						return
					}
					done.Add(1)
				}
			})
			b.StopTimer()
			b.ReportMetric(float64(done.Load())/b.Elapsed().Seconds(), "transfers/s")
			b.ReportMetric(float64(attempts.Load())/float64(max(done.Load(), 1)), "attempts/transfer")
		})
	}
}
