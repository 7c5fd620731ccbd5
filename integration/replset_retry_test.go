package integration_test

import (
	"context"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/mayfly/mayfly/integration/harness"
)

// Ensure that retryable inserts and WithTransaction transfers that run
// while the primary is SIGKILLed lose nothing and apply nothing twice:
// after the failover every acknowledged insert is on every member exactly
// once, and the accounts hold every acknowledged transfer and their sum is
// unchanged.
func TestReplSetRetryableWritesAcrossFailover(t *testing.T) {
	set := harness.StartSet(t, "rs0", 3)
	p := waitPrimary(t, set, 20*time.Second)
	cl := setClient(t, set)
	ctx := t.Context()
	db := cl.Database("bank")
	items, accounts := db.Collection("items"), db.Collection("accounts")
	if _, err := accounts.InsertMany(ctx, []any{
		bson.D{{Key: "_id", Value: "a"}, {Key: "bal", Value: 100000}},
		bson.D{{Key: "_id", Value: "b"}, {Key: "bal", Value: 0}},
	}); err != nil {
		t.Fatal(err)
	}

	var (
		stop                    atomic.Bool
		wg                      sync.WaitGroup
		mu                      sync.Mutex
		acked                   []int
		transfers, attempted    atomic.Int64
		afterKill, afterKillTxn atomic.Int64
		killed                  atomic.Bool
	)
	wg.Add(2)
	go func() {
		defer wg.Done()
		for i := 0; !stop.Load(); i++ {
			// The driver generates _id, so a retry sends the same
			// document: a second application would be a duplicate key.
			_, err := items.InsertOne(ctx, bson.D{{Key: "seq", Value: i}})
			if err == nil {
				mu.Lock()
				acked = append(acked, i)
				mu.Unlock()
				if killed.Load() {
					afterKill.Add(1)
				}
			} else if mongo.IsDuplicateKeyError(err) {
				t.Errorf("insert %d: a retried insert ran twice: %v", i, err)
			}
		}
	}()
	go func() {
		defer wg.Done()
		sess, err := cl.StartSession()
		if err != nil {
			t.Error(err)
			return
		}
		defer sess.EndSession(context.Background())
		for !stop.Load() {
			attempted.Add(1)
			_, err := sess.WithTransaction(ctx, func(sc context.Context) (any, error) {
				if _, err := accounts.UpdateOne(sc, bson.D{{Key: "_id", Value: "a"}}, bson.D{{Key: "$inc", Value: bson.D{{Key: "bal", Value: -1}}}}); err != nil {
					return nil, err
				}
				_, err := accounts.UpdateOne(sc, bson.D{{Key: "_id", Value: "b"}}, bson.D{{Key: "$inc", Value: bson.D{{Key: "bal", Value: 1}}}})
				return nil, err
			})
			if err == nil {
				transfers.Add(1)
				if killed.Load() {
					afterKillTxn.Add(1)
				}
			}
		}
	}()

	// Writes of both kinds are acknowledged before the kill.
	before := time.Now().Add(20 * time.Second)
	for {
		mu.Lock()
		n := len(acked)
		mu.Unlock()
		if n >= 20 && transfers.Load() >= 5 {
			break
		}
		if time.Now().After(before) {
			stop.Store(true)
			wg.Wait()
			t.Fatalf("before the kill: %d inserts and %d transfers acknowledged within 20 s", n, transfers.Load())
		}
		time.Sleep(20 * time.Millisecond)
	}
	set.Kill(p)
	killed.Store(true)
	deadline := time.Now().Add(20 * time.Second)
	for afterKill.Load() < 20 || afterKillTxn.Load() < 5 {
		if time.Now().After(deadline) {
			stop.Store(true)
			wg.Wait()
			t.Fatalf("after the kill: %d inserts and %d transfers acknowledged within 20 s", afterKill.Load(), afterKillTxn.Load())
		}
		time.Sleep(20 * time.Millisecond)
	}
	stop.Store(true)
	wg.Wait()
	t.Logf("%d inserts and %d of %d transfers acknowledged, %d and %d after the kill",
		len(acked), transfers.Load(), attempted.Load(), afterKill.Load(), afterKillTxn.Load())

	set.Restart(p)
	waitPrimary(t, set, 20*time.Second)
	total, err := items.CountDocuments(ctx, bson.D{})
	if err != nil {
		t.Fatal(err)
	}
	primaryB := balance(t, accounts, "b")
	for i, m := range set.Members {
		mdb := memberClient(t, m).Database("bank")
		waitCount(t, mdb.Collection("items"), total)
		// A member that restarted may apply the last transfers after the
		// last insert: wait until it holds what the primary holds.
		eventually(t, 10*time.Second, fmt.Sprintf("member %d holds the primary's balances", i), func() bool {
			return balance(t, mdb.Collection("accounts"), "b") == primaryB
		})
		counts := seqCounts(t, mdb.Collection("items"))
		for _, seq := range acked {
			if counts[seq] != 1 {
				t.Errorf("member %d: acknowledged insert %d is there %d times", i, seq, counts[seq])
			}
		}
		for seq, n := range counts {
			if n != 1 {
				t.Errorf("member %d: insert %d is there %d times", i, seq, n)
			}
		}
		a, b := balance(t, mdb.Collection("accounts"), "a"), balance(t, mdb.Collection("accounts"), "b")
		if a+b != 100000 || b < transfers.Load() || b > attempted.Load() {
			t.Errorf("member %d: balances a=%d b=%d, want sum 100000 and b in [%d, %d]", i, a, b, transfers.Load(), attempted.Load())
		}
	}
}

// seqCounts counts the documents of coll per seq.
func seqCounts(t *testing.T, coll *mongo.Collection) map[int]int {
	t.Helper()
	cur, err := coll.Find(t.Context(), bson.D{})
	if err != nil {
		t.Fatal(err)
	}
	var docs []struct {
		Seq int `bson:"seq"`
	}
	if err := cur.All(t.Context(), &docs); err != nil {
		t.Fatal(err)
	}
	out := map[int]int{}
	for _, d := range docs {
		out[d.Seq]++
	}
	return out
}

// balance reads an account's balance.
func balance(t *testing.T, coll *mongo.Collection, id string) int64 {
	t.Helper()
	var doc struct {
		Bal int64 `bson:"bal"`
	}
	if err := coll.FindOne(t.Context(), bson.D{{Key: "_id", Value: id}}).Decode(&doc); err != nil {
		t.Fatal(err)
	}
	return doc.Bal
}

// Ensure that a retry sent to the new primary of a write that committed
// on the old one is answered from the replicated retry record: the same
// lsid and txnNumber give the original reply, not a duplicate key error.
func TestReplSetRetryAnsweredByNewPrimary(t *testing.T) {
	set := harness.StartSet(t, "rs0", 3)
	p := waitPrimary(t, set, 20*time.Second)
	lsid := bson.D{{Key: "id", Value: bson.Binary{Subtype: bson.TypeBinaryUUID, Data: []byte("0123456789abcdef")}}}
	insert := bson.D{
		{Key: "insert", Value: "items"},
		{Key: "documents", Value: bson.A{bson.D{{Key: "_id", Value: 1}}}},
		{Key: "lsid", Value: lsid},
		{Key: "txnNumber", Value: int64(7)},
		{Key: "writeConcern", Value: bson.D{{Key: "w", Value: "majority"}}},
	}
	// Raw OP_MSGs, so that the driver adds no session of its own.
	run := func(m *harness.Member, cmd bson.D) bson.Raw {
		t.Helper()
		nc, err := net.Dial("tcp", m.MongoAddr)
		if err != nil {
			t.Fatal(err)
		}
		defer nc.Close()
		cmd = append(append(bson.D{}, cmd...), bson.E{Key: "$db", Value: "app"},
			bson.E{Key: "$readPreference", Value: bson.D{{Key: "mode", Value: "secondaryPreferred"}}})
		return opMsg(t, nc, 1, cmd)
	}
	// The secondaries learn of the session before its write: what they
	// hold of it in memory is older than the record that replicates.
	for i, m := range set.Members {
		if i != p {
			run(m, bson.D{{Key: "find", Value: "items"}, {Key: "lsid", Value: lsid}})
		}
	}
	first := run(set.Members[p], insert)
	if first.Lookup("n").Int32() != 1 {
		t.Fatalf("first attempt: %v", first)
	}
	// A transaction of another session commits on the old primary too.
	txnLsid := bson.D{{Key: "id", Value: bson.Binary{Subtype: bson.TypeBinaryUUID, Data: []byte("fedcba9876543210")}}}
	inTxn := func(cmd bson.D) bson.D {
		return append(cmd, bson.E{Key: "lsid", Value: txnLsid}, bson.E{Key: "txnNumber", Value: int64(3)}, bson.E{Key: "autocommit", Value: false})
	}
	commit := inTxn(bson.D{{Key: "commitTransaction", Value: 1}, {Key: "writeConcern", Value: bson.D{{Key: "w", Value: "majority"}}}})
	nc, err := net.Dial("tcp", set.Members[p].MongoAddr)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	if r := opMsg(t, nc, 2, append(inTxn(bson.D{{Key: "insert", Value: "items"}, {Key: "documents", Value: bson.A{bson.D{{Key: "_id", Value: 2}}}}}),
		bson.E{Key: "startTransaction", Value: true}, bson.E{Key: "$db", Value: "app"})); r.Lookup("n").Int32() != 1 {
		t.Fatalf("insert in the transaction: %v", r)
	}
	if r := opMsg(t, nc, 3, append(commit, bson.E{Key: "$db", Value: "admin"})); r.Lookup("ok").Double() != 1 {
		t.Fatalf("commit: %v", r)
	}
	// Every secondary has the records before the primary dies.
	for i, m := range set.Members {
		if i != p {
			waitCount(t, memberClient(t, m).Database("app").Collection("items"), 2)
		}
	}
	set.Kill(p)
	np := waitPrimary(t, set, 20*time.Second)
	retry := run(set.Members[np], insert)
	if replyFields(retry) != replyFields(first) {
		t.Fatalf("retry on the new primary: %v", retry)
	}
	// The commit retried on the new primary is answered as committed, not
	// with NoSuchTransaction (which would have the driver run the
	// transaction again).
	nc2, err := net.Dial("tcp", set.Members[np].MongoAddr)
	if err != nil {
		t.Fatal(err)
	}
	defer nc2.Close()
	if r := opMsg(t, nc2, 4, append(commit, bson.E{Key: "$db", Value: "admin"})); r.Lookup("ok").Double() != 1 {
		t.Fatalf("commit retried on the new primary: %v", r)
	}
}
