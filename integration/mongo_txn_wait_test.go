package integration_test

import (
	"context"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/mayfly/mayfly/integration/harness"
)

// txnWaitFixture is a server with bank.acct {_id: "a", balance: 100} and a
// session whose open transaction has added 10 to it.
type txnWaitFixture struct {
	s    *harness.Server
	cl   *mongo.Client
	acct *mongo.Collection
	sess *mongo.Session
	sctx context.Context
}

func newTxnWaitFixture(t *testing.T, args ...string) *txnWaitFixture {
	t.Helper()
	s := harness.Start(t, args...)
	cl := mongoClient(t, s)
	acct := cl.Database("bank").Collection("acct")
	ctx := context.Background()
	if _, err := acct.InsertOne(ctx, bson.D{{Key: "_id", Value: "a"}, {Key: "balance", Value: int32(100)}}); err != nil {
		t.Fatal(err)
	}
	sess, err := cl.StartSession()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sess.EndSession(context.Background()) })
	sctx := mongo.NewSessionContext(ctx, sess)
	if err := sess.StartTransaction(); err != nil {
		t.Fatal(err)
	}
	if _, err := acct.UpdateByID(sctx, "a", bson.D{{Key: "$inc", Value: bson.D{{Key: "balance", Value: int32(10)}}}}); err != nil {
		t.Fatal(err)
	}
	return &txnWaitFixture{s: s, cl: cl, acct: acct, sess: sess, sctx: sctx}
}

// waiting reports whether currentOp shows an update of bank.acct running.
func (f *txnWaitFixture) waiting(t *testing.T) bool {
	var out struct {
		Inprog []struct {
			Op string `bson:"op"`
			NS string `bson:"ns"`
		} `bson:"inprog"`
	}
	if err := f.cl.Database("admin").RunCommand(context.Background(), bson.D{{Key: "currentOp", Value: 1}}).Decode(&out); err != nil {
		t.Fatal(err)
	}
	for _, op := range out.Inprog {
		if op.Op == "update" && op.NS == "bank.acct" {
			return true
		}
	}
	return false
}

func (f *txnWaitFixture) balance(t *testing.T) int32 {
	var d struct {
		Balance int32 `bson:"balance"`
	}
	if err := f.acct.FindOne(context.Background(), bson.D{{Key: "_id", Value: "a"}}).Decode(&d); err != nil {
		t.Fatal(err)
	}
	return d.Balance
}

// A plain update of a document an open transaction wrote waits for the
// commit, then applies on the committed version.
func TestMongoWriteWaitsForTransactionCommit(t *testing.T) {
	f := newTxnWaitFixture(t)
	done := make(chan error, 1)
	go func() {
		_, err := f.acct.UpdateByID(context.Background(), "a", bson.D{{Key: "$inc", Value: bson.D{{Key: "balance", Value: int32(1000)}}}})
		done <- err
	}()
	eventually(t, 10*time.Second, "the update waits behind the transaction", func() bool { return f.waiting(t) })
	select {
	case err := <-done:
		t.Fatalf("the update finished (%v) while the transaction is open", err)
	default:
	}
	if got := f.balance(t); got != 100 {
		t.Fatalf("balance outside the open transaction = %d, want 100", got)
	}
	if err := f.sess.CommitTransaction(context.Background()); err != nil {
		t.Fatalf("commit: %v", err)
	}
	if err := <-done; err != nil {
		t.Fatalf("update after the commit: %v", err)
	}
	if got := f.balance(t); got != 1110 {
		t.Fatalf("balance = %d, want 1110", got)
	}
}

// The wait is bounded by the write's maxTimeMS: MaxTimeMSExpired, nothing
// written, and the transaction still commits.
func TestMongoWriteWaitForTransactionMaxTimeMS(t *testing.T) {
	f := newTxnWaitFixture(t)
	// A client without a timeout of its own, which would replace the
	// command's maxTimeMS with its remaining time.
	plain, err := mongo.Connect(options.Client().ApplyURI("mongodb://" + f.s.MongoAddr + "/?directConnection=true"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { plain.Disconnect(context.Background()) })
	err = plain.Database("bank").RunCommand(context.Background(), bson.D{
		{Key: "update", Value: "acct"},
		{Key: "updates", Value: bson.A{bson.D{{Key: "q", Value: bson.D{{Key: "_id", Value: "a"}}}, {Key: "u", Value: bson.D{{Key: "$inc", Value: bson.D{{Key: "balance", Value: int32(1000)}}}}}}}},
		{Key: "maxTimeMS", Value: int32(200)},
	}).Err()
	wantCommandError(t, err, 50, "operation exceeded time limit")
	if err := f.sess.CommitTransaction(context.Background()); err != nil {
		t.Fatalf("commit after the timed-out write: %v", err)
	}
	if got := f.balance(t); got != 110 {
		t.Fatalf("balance = %d, want 110", got)
	}
}

// transactionLifetimeLimitSeconds aborts the transaction a write waits
// for, which then applies on the original version.
func TestMongoWriteWaitForTransactionLifetime(t *testing.T) {
	f := newTxnWaitFixture(t, "--manual-clock")
	done := make(chan error, 1)
	go func() {
		_, err := f.acct.UpdateByID(context.Background(), "a", bson.D{{Key: "$inc", Value: bson.D{{Key: "balance", Value: int32(1000)}}}})
		done <- err
	}()
	eventually(t, 10*time.Second, "the update waits behind the transaction", func() bool { return f.waiting(t) })
	f.s.Advance(t, 2*time.Minute)
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("update after the transaction expired: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the update still waits after the transaction's lifetime")
	}
	if got := f.balance(t); got != 1100 {
		t.Fatalf("balance = %d, want 1100", got)
	}
	err := f.sess.CommitTransaction(context.Background())
	wantCommandError(t, err, 251, "")
}

// serverStatus().transactions counts a transaction whose statement is
// running as active, and as inactive between its statements.
func TestMongoTransactionsCurrentActive(t *testing.T) {
	f := newTxnWaitFixture(t, "--set-parameter", "enableTestCommands=1")
	admin := f.cl.Database("admin")
	counts := func() (active, inactive int64) {
		var out struct {
			Transactions struct {
				CurrentActive   int64 `bson:"currentActive"`
				CurrentInactive int64 `bson:"currentInactive"`
			} `bson:"transactions"`
		}
		if err := admin.RunCommand(context.Background(), bson.D{{Key: "serverStatus", Value: 1}}).Decode(&out); err != nil {
			t.Fatal(err)
		}
		return out.Transactions.CurrentActive, out.Transactions.CurrentInactive
	}
	if a, i := counts(); a != 0 || i != 1 {
		t.Fatalf("between statements: currentActive %d, currentInactive %d, want 0 and 1", a, i)
	}
	if err := admin.RunCommand(context.Background(), bson.D{
		{Key: "configureFailPoint", Value: "failCommand"}, {Key: "mode", Value: bson.D{{Key: "times", Value: int32(1)}}},
		{Key: "data", Value: bson.D{{Key: "failCommands", Value: bson.A{"find"}}, {Key: "blockConnection", Value: true}, {Key: "blockTimeMS", Value: int32(3000)}}},
	}).Err(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- f.acct.FindOne(f.sctx, bson.D{{Key: "_id", Value: "a"}}).Err() }()
	eventually(t, 10*time.Second, "the blocked statement counts as active", func() bool {
		a, i := counts()
		return a == 1 && i == 0
	})
	if err := <-done; err != nil {
		t.Fatalf("find in the transaction: %v", err)
	}
	if a, i := counts(); a != 0 || i != 1 {
		t.Fatalf("after the statement: currentActive %d, currentInactive %d", a, i)
	}
}
