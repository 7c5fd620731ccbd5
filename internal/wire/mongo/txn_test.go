package mongo_test

import (
	"context"
	"crypto/sha256"
	"errors"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	drv "go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

func balance(t *testing.T, ctx context.Context, c *drv.Collection, id string) int32 {
	t.Helper()
	var d bson.Raw
	if err := c.FindOne(ctx, bson.D{{Key: "_id", Value: id}}).Decode(&d); err != nil {
		t.Fatalf("balance of %s: %v", id, err)
	}
	return d.Lookup("balance").Int32()
}

func hasLabel(err error, label string) bool {
	var le drv.LabeledError
	return errors.As(err, &le) && le.HasErrorLabel(label)
}

func setupAccounts(t *testing.T, cl *drv.Client) *drv.Collection {
	t.Helper()
	c := cl.Database("bank").Collection("acct")
	if _, err := c.InsertMany(context.Background(), []any{
		bson.D{{Key: "_id", Value: "alice"}, {Key: "balance", Value: int32(100)}},
		bson.D{{Key: "_id", Value: "bob"}, {Key: "balance", Value: int32(0)}},
	}); err != nil {
		t.Fatal(err)
	}
	return c
}

func transfer(ctx context.Context, c *drv.Collection, from, to string, n int32) error {
	if _, err := c.UpdateOne(ctx, bson.D{{Key: "_id", Value: from}}, bson.D{{Key: "$inc", Value: bson.D{{Key: "balance", Value: -n}}}}); err != nil {
		return err
	}
	_, err := c.UpdateOne(ctx, bson.D{{Key: "_id", Value: to}}, bson.D{{Key: "$inc", Value: bson.D{{Key: "balance", Value: n}}}})
	return err
}

func TestWithTransactionCommits(t *testing.T) {
	t.Parallel()
	ts := startServer(t)
	cl := ts.client(t)
	c := setupAccounts(t, cl)
	sess, err := cl.StartSession()
	if err != nil {
		t.Fatal(err)
	}
	defer sess.EndSession(context.Background())
	_, err = sess.WithTransaction(context.Background(), func(ctx context.Context) (any, error) {
		if err := transfer(ctx, c, "alice", "bob", 30); err != nil {
			return nil, err
		}
		// Inside: the transaction's own writes; outside: nothing yet.
		if got := balance(t, ctx, c, "bob"); got != 30 {
			t.Errorf("bob inside the transaction: %d", got)
		}
		if got := balance(t, context.Background(), c, "bob"); got != 0 {
			t.Errorf("bob outside before the commit: %d", got)
		}
		return nil, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if a, b := balance(t, context.Background(), c, "alice"), balance(t, context.Background(), c, "bob"); a != 70 || b != 30 {
		t.Fatalf("after commit alice %d bob %d", a, b)
	}
	r := mustRun(t, cl.Database("admin"), bson.D{{Key: "serverStatus", Value: 1}})
	if lookup(t, r, "transactions", "totalCommitted").Int64() != 1 || lookup(t, r, "transactions", "totalStarted").Int64() != 1 {
		t.Fatalf("transactions counters %v", lookup(t, r, "transactions"))
	}
}

func TestTransactionAbortAndErrors(t *testing.T) {
	t.Parallel()
	ts := startServer(t)
	cl := ts.client(t)
	c := setupAccounts(t, cl)
	sess, err := cl.StartSession()
	if err != nil {
		t.Fatal(err)
	}
	defer sess.EndSession(context.Background())
	ctx := drv.NewSessionContext(context.Background(), sess)
	if err := sess.StartTransaction(); err != nil {
		t.Fatal(err)
	}
	if err := transfer(ctx, c, "alice", "bob", 30); err != nil {
		t.Fatal(err)
	}
	// count is refused inside a transaction.
	err = cl.Database("bank").RunCommand(ctx, bson.D{{Key: "count", Value: "acct"}}).Err()
	wantError(t, err, 263, "OperationNotSupportedInTransaction", "Cannot run 'count' in a multi-document transaction.")
	if err := sess.AbortTransaction(context.Background()); err != nil {
		t.Fatal(err)
	}
	if a := balance(t, context.Background(), c, "alice"); a != 100 {
		t.Fatalf("alice after abort: %d", a)
	}
	// A failed statement aborts the transaction: the next one gets
	// NoSuchTransaction with TransientTransactionError.
	if err := sess.StartTransaction(); err != nil {
		t.Fatal(err)
	}
	_, err = c.InsertOne(ctx, bson.D{{Key: "_id", Value: "alice"}})
	wantError(t, err, 11000, "", "")
	_, err = c.InsertOne(ctx, bson.D{{Key: "_id", Value: "carol"}})
	wantError(t, err, 251, "NoSuchTransaction", "")
	if !hasLabel(err, "TransientTransactionError") {
		t.Fatalf("no TransientTransactionError on %v", err)
	}
	sess.AbortTransaction(context.Background())
}

func TestTransactionsConflict(t *testing.T) {
	t.Parallel()
	ts := startServer(t)
	cl := ts.client(t)
	c := setupAccounts(t, cl)
	s1, _ := cl.StartSession()
	s2, _ := cl.StartSession()
	defer s1.EndSession(context.Background())
	defer s2.EndSession(context.Background())
	ctx1 := drv.NewSessionContext(context.Background(), s1)
	ctx2 := drv.NewSessionContext(context.Background(), s2)
	s1.StartTransaction()
	s2.StartTransaction()
	// Both read the same balance (snapshot), then write it.
	if balance(t, ctx1, c, "alice") != 100 || balance(t, ctx2, c, "alice") != 100 {
		t.Fatal("snapshot reads")
	}
	if err := transfer(ctx1, c, "alice", "bob", 10); err != nil {
		t.Fatal(err)
	}
	err := transfer(ctx2, c, "alice", "bob", 20)
	wantError(t, err, 112, "WriteConflict", "WriteConflict error: this operation conflicted with another operation. Please retry your operation or multi-document transaction.")
	if !hasLabel(err, "TransientTransactionError") {
		t.Fatalf("no TransientTransactionError on %v", err)
	}
	if err := s1.CommitTransaction(context.Background()); err != nil {
		t.Fatal(err)
	}
	s2.AbortTransaction(context.Background())
	// A commit over a write committed since the snapshot fails whole (the
	// write is made before the transaction writes alice: after, it would
	// wait for the transaction).
	s2.StartTransaction()
	balance(t, ctx2, c, "bob")
	if _, err := c.UpdateOne(context.Background(), bson.D{{Key: "_id", Value: "alice"}}, bson.D{{Key: "$inc", Value: bson.D{{Key: "balance", Value: 1000}}}}); err != nil {
		t.Fatal(err)
	}
	if err := transfer(ctx2, c, "bob", "alice", 5); err != nil {
		t.Fatal(err)
	}
	err = s2.CommitTransaction(context.Background())
	wantError(t, err, 112, "WriteConflict", "")
	if a, b := balance(t, context.Background(), c, "alice"), balance(t, context.Background(), c, "bob"); a != 1090 || b != 10 {
		t.Fatalf("alice %d bob %d, want 1090 10", a, b)
	}
	// withTransaction retries a transaction that met a conflict.
	s3, _ := cl.StartSession()
	defer s3.EndSession(context.Background())
	attempts := 0
	_, err = s3.WithTransaction(context.Background(), func(ctx context.Context) (any, error) {
		attempts++
		if attempts == 1 {
			// Another session commits a change of alice after this
			// transaction's snapshot.
			balance(t, ctx, c, "alice")
			if _, err := c.UpdateOne(context.Background(), bson.D{{Key: "_id", Value: "alice"}}, bson.D{{Key: "$inc", Value: bson.D{{Key: "balance", Value: 1}}}}); err != nil {
				t.Fatal(err)
			}
		}
		return nil, transfer(ctx, c, "alice", "bob", 1)
	}, options.Transaction())
	if err != nil || attempts != 2 {
		t.Fatalf("withTransaction: %v after %d attempts", err, attempts)
	}
	if a, b := balance(t, context.Background(), c, "alice"), balance(t, context.Background(), c, "bob"); a != 1090 || b != 11 {
		t.Fatalf("alice %d bob %d, want 1090 11", a, b)
	}
}

func TestTransactionLifetimeLimit(t *testing.T) {
	t.Parallel()
	ts := startServer(t)
	cl := ts.client(t)
	c := setupAccounts(t, cl)
	mustRun(t, cl.Database("admin"), bson.D{{Key: "setParameter", Value: 1}, {Key: "transactionLifetimeLimitSeconds", Value: int32(5)}})
	sess, _ := cl.StartSession()
	defer sess.EndSession(context.Background())
	ctx := drv.NewSessionContext(context.Background(), sess)
	sess.StartTransaction()
	if err := transfer(ctx, c, "alice", "bob", 1); err != nil {
		t.Fatal(err)
	}
	ts.clock.Advance(6 * time.Second)
	err := sess.CommitTransaction(context.Background())
	wantError(t, err, 251, "NoSuchTransaction", "")
	if a := balance(t, context.Background(), c, "alice"); a != 100 {
		t.Fatalf("alice %d after an expired transaction", a)
	}
}

func TestCurrentOpShowsOpenTransactions(t *testing.T) {
	t.Parallel()
	ts := startServer(t)
	cl := ts.client(t)
	c := setupAccounts(t, cl)
	sess, _ := cl.StartSession()
	defer sess.EndSession(context.Background())
	ctx := drv.NewSessionContext(context.Background(), sess)
	sess.StartTransaction()
	if err := transfer(ctx, c, "alice", "bob", 1); err != nil {
		t.Fatal(err)
	}
	ts.clock.Advance(2 * time.Second)
	admin := cl.Database("admin")
	r := mustRun(t, admin, bson.D{{Key: "currentOp", Value: 1}, {Key: "$all", Value: true}, {Key: "type", Value: "idleSession"}})
	ops, _ := lookup(t, r, "inprog").Array().Values()
	if len(ops) != 1 {
		t.Fatalf("idle sessions %v", r)
	}
	op := ops[0].Document()
	if op.Lookup("transaction", "parameters", "txnNumber").Int64() != 1 || op.Lookup("transaction", "timeOpenMicros").Int64() != 2e6 {
		t.Fatalf("idle transaction %v", op)
	}
	// killSessions by an admin aborts it.
	mustRun(t, admin, bson.D{{Key: "killSessions", Value: bson.A{bson.D{{Key: "id", Value: op.Lookup("lsid", "id")}}}}})
	err := sess.CommitTransaction(context.Background())
	wantError(t, err, 251, "NoSuchTransaction", "")
	if a := balance(t, context.Background(), c, "alice"); a != 100 {
		t.Fatalf("alice %d after the session was killed", a)
	}
}

func TestTransactionStatementOptions(t *testing.T) {
	t.Parallel()
	ts := startServer(t)
	cl := ts.client(t)
	setupAccounts(t, cl)
	db := cl.Database("bank")
	inSession(t, cl, func(ctx context.Context) {
		start := bson.D{{Key: "find", Value: "acct"}, {Key: "readConcern", Value: bson.D{{Key: "level", Value: "snapshot"}}},
			{Key: "txnNumber", Value: int64(1)}, {Key: "autocommit", Value: false}, {Key: "startTransaction", Value: true}}
		if _, err := runCtx(t, ctx, db, start); err != nil {
			t.Fatal(err)
		}
		_, err := runCtx(t, ctx, db, bson.D{{Key: "find", Value: "acct"}, {Key: "readConcern", Value: bson.D{{Key: "level", Value: "snapshot"}}},
			{Key: "txnNumber", Value: int64(1)}, {Key: "autocommit", Value: false}})
		wantError(t, err, 72, "InvalidOptions", "Only the first command in a transaction may specify a readConcern")
		_, err = runCtx(t, ctx, db, bson.D{{Key: "insert", Value: "acct"}, {Key: "documents", Value: bson.A{bson.D{}}},
			{Key: "writeConcern", Value: bson.D{{Key: "w", Value: 1}}}, {Key: "txnNumber", Value: int64(1)}, {Key: "autocommit", Value: false}})
		wantError(t, err, 72, "InvalidOptions", "writeConcern is not allowed within a multi-statement transaction")
		_, err = runCtx(t, ctx, db, bson.D{{Key: "find", Value: "acct"}, {Key: "txnNumber", Value: int64(1)}, {Key: "autocommit", Value: true}})
		wantError(t, err, 72, "InvalidOptions", "Specifying autocommit=true is not allowed.")
		_, err = runCtx(t, ctx, cl.Database("admin"), bson.D{{Key: "commitTransaction", Value: 1}, {Key: "txnNumber", Value: int64(1)}, {Key: "autocommit", Value: false},
			{Key: "writeConcern", Value: bson.D{{Key: "w", Value: "majority"}}}})
		if err != nil {
			t.Fatalf("commit with a writeConcern: %v", err)
		}
		// A commit retried after it succeeded succeeds again; another
		// statement is refused.
		if _, err := runCtx(t, ctx, cl.Database("admin"), bson.D{{Key: "commitTransaction", Value: 1}, {Key: "txnNumber", Value: int64(1)}, {Key: "autocommit", Value: false}}); err != nil {
			t.Fatalf("commit retried: %v", err)
		}
		_, err = runCtx(t, ctx, db, bson.D{{Key: "find", Value: "acct"}, {Key: "txnNumber", Value: int64(1)}, {Key: "autocommit", Value: false}})
		wantError(t, err, 256, "TransactionCommitted", "Transaction with { txnNumber: 1 } has been committed.")
		_, err = runCtx(t, ctx, db, bson.D{{Key: "commitTransaction", Value: 1}, {Key: "txnNumber", Value: int64(1)}, {Key: "autocommit", Value: false}})
		wantError(t, err, 13, "Unauthorized", "commitTransaction may only be run against the admin database.")
	})
}

func TestKillAllSessionsAbortsTransactions(t *testing.T) {
	t.Parallel()
	ts := startServer(t)
	cl := ts.client(t)
	c := setupAccounts(t, cl)
	for _, kill := range []bson.D{
		{{Key: "killAllSessions", Value: bson.A{}}},
		{{Key: "killAllSessionsByPattern", Value: bson.A{bson.D{{Key: "uid", Value: bson.Binary{Data: sha256Empty()}}}}}},
	} {
		sess, _ := cl.StartSession()
		ctx := drv.NewSessionContext(context.Background(), sess)
		sess.StartTransaction()
		if err := transfer(ctx, c, "alice", "bob", 1); err != nil {
			t.Fatal(err)
		}
		mustRun(t, cl.Database("admin"), kill)
		err := sess.CommitTransaction(context.Background())
		wantError(t, err, 251, "NoSuchTransaction", "")
		sess.EndSession(context.Background())
		if a := balance(t, context.Background(), c, "alice"); a != 100 {
			t.Fatalf("alice %d after %v", a, kill)
		}
	}
}

// sha256Empty is lsid.uid without authentication: the hash of no user.
func sha256Empty() []byte {
	h := sha256.Sum256(nil)
	return h[:]
}
