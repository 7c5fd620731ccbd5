package integration_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/mayfly/mayfly/integration/harness"
)

// The account transfer: two updates in one transaction through mongosh's
// session API; the second session sees nothing before the commit, both
// changes after it, and an aborted transfer leaves no trace.
func TestMongoshSeed003Transfer(t *testing.T) {
	s := harness.Start(t)
	out := mongosh(t, s, "seed", seedScript(t, "seed003_transfer.js")+"exit\n")
	wantOutput(t, out,
		"{ _id: 'mehmet', bakiye: 100 }",
		"[ { _id: 'ayse', bakiye: 300 }, { _id: 'mehmet', bakiye: 300 } ]",
		"{ _id: 'ayse', bakiye: 300 }",
	)
}

// mongoose's session.withTransaction: a transfer commits whole, a thrown
// error aborts it, and concurrent transfers on the same accounts are
// retried by the driver until each commits once.
func TestMongooseWithTransaction(t *testing.T) {
	s := harness.Start(t)
	runMongoNodeScript(t, s, "mongoose_txn_test.js", 2*time.Minute)
}

// kill -9 in the middle of transfer transactions: after the restart every
// acknowledged transaction is there whole, and no transaction is there in
// part. Each transfer moves one unit between two accounts and writes its
// ledger entry in another database, so the balances recomputed from the
// ledger must equal the stored ones exactly.
func TestTransactionsSurviveKill9(t *testing.T) {
	dir := t.TempDir()
	s := harness.StartDir(t, dir, "--durability", "sync")
	cl := mongoClient(t, s)
	ctx := context.Background()
	const accounts, initial = 8, 1000
	acct := cl.Database("bank").Collection("acct")
	for i := range accounts {
		if _, err := acct.InsertOne(ctx, bson.D{{Key: "_id", Value: int32(i)}, {Key: "balance", Value: int32(initial)}}); err != nil {
			t.Fatal(err)
		}
	}
	ledger := cl.Database("audit").Collection("ledger")
	var mu sync.Mutex
	acked := map[string]bool{}
	enough := make(chan struct{})
	var once sync.Once
	var wg sync.WaitGroup
	for w := range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(w), 7))
			for n := 0; ; n++ {
				from, to := int32(rng.IntN(accounts)), int32(rng.IntN(accounts))
				id := fmt.Sprintf("w%d-%d", w, n)
				sess, err := cl.StartSession()
				if err != nil {
					return
				}
				sctx := mongo.NewSessionContext(ctx, sess)
				err = sess.StartTransaction()
				if err == nil {
					_, err = acct.UpdateOne(sctx, bson.D{{Key: "_id", Value: from}}, bson.D{{Key: "$inc", Value: bson.D{{Key: "balance", Value: int32(-1)}}}})
				}
				if err == nil {
					_, err = acct.UpdateOne(sctx, bson.D{{Key: "_id", Value: to}}, bson.D{{Key: "$inc", Value: bson.D{{Key: "balance", Value: int32(1)}}}})
				}
				if err == nil {
					_, err = ledger.InsertOne(sctx, bson.D{{Key: "_id", Value: id}, {Key: "from", Value: from}, {Key: "to", Value: to}})
				}
				if err == nil {
					err = sess.CommitTransaction(ctx)
				} else {
					sess.AbortTransaction(ctx)
				}
				sess.EndSession(ctx)
				if err == nil {
					mu.Lock()
					acked[id] = true
					if len(acked) >= 100 {
						once.Do(func() { close(enough) })
					}
					mu.Unlock()
				} else if errors.Is(err, mongo.ErrClientDisconnected) || mongo.IsNetworkError(err) || strings.Contains(err.Error(), "connection") {
					return
				}
			}
		}()
	}
	select {
	case <-enough:
	case <-time.After(90 * time.Second):
		t.Fatal("fewer than 100 transfers acknowledged in 90s")
	}
	s.Kill()
	wg.Wait()
	s = harness.StartDir(t, dir, "--durability", "sync")
	cl = mongoClient(t, s)
	acct = cl.Database("bank").Collection("acct")
	ledger = cl.Database("audit").Collection("ledger")
	want := make([]int32, accounts)
	for i := range want {
		want[i] = initial
	}
	cur, err := ledger.Find(ctx, bson.D{})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for cur.Next(ctx) {
		seen[cur.Current.Lookup("_id").StringValue()] = true
		want[cur.Current.Lookup("from").Int32()]--
		want[cur.Current.Lookup("to").Int32()]++
	}
	for id := range acked {
		if !seen[id] {
			t.Errorf("acknowledged transfer %s lost", id)
		}
	}
	for i := range accounts {
		var d bson.Raw
		if err := acct.FindOne(ctx, bson.D{{Key: "_id", Value: int32(i)}}).Decode(&d); err != nil {
			t.Fatal(err)
		}
		if got := d.Lookup("balance").Int32(); got != want[i] {
			t.Errorf("account %d: balance %d, ledger says %d: a transaction is there in part", i, got, want[i])
		}
	}
	t.Logf("%d acknowledged, %d in the ledger after the restart", len(acked), len(seen))
}
