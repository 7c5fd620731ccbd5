package docdb

import (
	"context"
	"errors"
	"io"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// balances reads every account's balance through ctx (in a transaction or
// not).
func (te *testEngine) balances(ctx context.Context, coll string) map[string]int32 {
	te.t.Helper()
	cur, err := te.Find(ctx, "bank", coll, FindRequest{})
	if err != nil {
		te.t.Fatal(err)
	}
	defer cur.Close()
	out := map[string]int32{}
	for {
		d, err := cur.Next(ctx)
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			te.t.Fatal(err)
		}
		out[d.Lookup("_id").StringValue()] = d.Lookup("balance").Int32()
	}
}

func (te *testEngine) inc(ctx context.Context, coll, id string, by int32) error {
	res, err := te.Update(ctx, "bank", coll, UpdateRequest{Ordered: true, Statements: []UpdateStatement{{
		Filter: bson.D{{Key: "_id", Value: id}},
		Update: bson.D{{Key: "$inc", Value: bson.D{{Key: "balance", Value: by}}}},
	}}})
	if err == nil && len(res.WriteErrors) > 0 {
		err = res.WriteErrors[0].Err
	}
	return err
}

func TestTxnSnapshotAndOwnWrites(t *testing.T) {
	te := newTestEngine(t)
	te.mustInsert("bank", "acct", bson.D{{Key: "_id", Value: "a"}, {Key: "balance", Value: int32(100)}}, bson.D{{Key: "_id", Value: "b"}, {Key: "balance", Value: int32(0)}})
	txn := te.BeginTxn()
	ctx := WithTxn(t.Context(), txn)
	if err := te.inc(ctx, "acct", "a", -30); err != nil {
		t.Fatal(err)
	}
	if err := te.inc(ctx, "acct", "b", 30); err != nil {
		t.Fatal(err)
	}
	// A write committed outside after the transaction began is not seen
	// inside it; the transaction's own writes are, and are not seen
	// outside before the commit.
	te.mustInsert("bank", "acct", bson.D{{Key: "_id", Value: "c"}, {Key: "balance", Value: int32(5)}})
	if got := te.balances(ctx, "acct"); len(got) != 2 || got["a"] != 70 || got["b"] != 30 {
		t.Fatalf("inside: %v", got)
	}
	if got := te.balances(t.Context(), "acct"); got["a"] != 100 || got["b"] != 0 || got["c"] != 5 {
		t.Fatalf("outside before commit: %v", got)
	}
	// A write in another collection commits with the others.
	if _, err := te.Insert(ctx, "audit", "log", InsertRequest{Documents: []bson.Raw{raw(t, bson.D{{Key: "_id", Value: "t1"}})}}); err != nil {
		t.Fatal(err)
	}
	if err := txn.Commit(); err != nil {
		t.Fatal(err)
	}
	if got := te.balances(t.Context(), "acct"); got["a"] != 70 || got["b"] != 30 || got["c"] != 5 {
		t.Fatalf("after commit: %v", got)
	}
	if n, _ := te.Count(t.Context(), "audit", "log", CountRequest{}); n != 1 {
		t.Fatalf("audit.log has %d documents", n)
	}
}

func TestTxnAbortWritesNothing(t *testing.T) {
	te := newTestEngine(t)
	te.mustInsert("bank", "acct", bson.D{{Key: "_id", Value: "a"}, {Key: "balance", Value: int32(100)}})
	txn := te.BeginTxn()
	ctx := WithTxn(t.Context(), txn)
	if err := te.inc(ctx, "acct", "a", -30); err != nil {
		t.Fatal(err)
	}
	txn.Abort()
	if got := te.balances(t.Context(), "acct"); got["a"] != 100 {
		t.Fatalf("after abort: %v", got)
	}
	// The document is free again.
	if err := te.inc(WithTxn(t.Context(), te.BeginTxn()), "acct", "a", 1); err != nil {
		t.Fatalf("write after the owner aborted: %v", err)
	}
}

func TestTxnWriteConflicts(t *testing.T) {
	te := newTestEngine(t)
	te.mustInsert("bank", "acct", bson.D{{Key: "_id", Value: "a"}, {Key: "balance", Value: int32(100)}})
	// First writer wins against another open transaction.
	t1, t2 := te.BeginTxn(), te.BeginTxn()
	if err := te.inc(WithTxn(t.Context(), t1), "acct", "a", 1); err != nil {
		t.Fatal(err)
	}
	if err := te.inc(WithTxn(t.Context(), t2), "acct", "a", 1); !errors.Is(err, ErrWriteConflict) {
		t.Fatalf("second writer: %v, want a write conflict", err)
	}
	t2.Abort()
	if err := t1.Commit(); err != nil {
		t.Fatal(err)
	}
	// A write committed since the snapshot fails the commit (no lost
	// update), which then writes nothing.
	t3 := te.BeginTxn()
	if err := te.inc(t.Context(), "acct", "a", 1000); err != nil {
		t.Fatal(err)
	}
	if err := te.inc(WithTxn(t.Context(), t3), "acct", "a", 10); err != nil {
		t.Fatal(err)
	}
	if err := t3.Commit(); !errors.Is(err, ErrWriteConflict) {
		t.Fatalf("commit over a later write: %v", err)
	}
	if got := te.balances(t.Context(), "acct"); got["a"] != 1101 {
		t.Fatalf("balance %v, want 1101", got)
	}
}

func TestTxnUniqueIndex(t *testing.T) {
	te := newTestEngine(t)
	if _, err := te.CreateIndexes(t.Context(), "bank", "u", []IndexSpec{{Key: bson.D{{Key: "email", Value: 1}}, Name: "email_1", Options: bson.D{{Key: "unique", Value: true}}}}); err != nil {
		t.Fatal(err)
	}
	txn := te.BeginTxn()
	ctx := WithTxn(t.Context(), txn)
	res, err := te.Insert(ctx, "bank", "u", InsertRequest{Documents: []bson.Raw{raw(t, bson.D{{Key: "_id", Value: 1}, {Key: "email", Value: "x"}})}})
	if err != nil || len(res.WriteErrors) > 0 {
		t.Fatal(err, res.WriteErrors)
	}
	// Inside the transaction the key is taken.
	res, _ = te.Insert(ctx, "bank", "u", InsertRequest{Documents: []bson.Raw{raw(t, bson.D{{Key: "_id", Value: 2}, {Key: "email", Value: "x"}})}})
	if len(res.WriteErrors) != 1 {
		t.Fatalf("duplicate inside the transaction: %v", res)
	}
	// Committed outside meanwhile: the transaction's commit fails.
	te.mustInsert("bank", "u", bson.D{{Key: "_id", Value: 3}, {Key: "email", Value: "x"}})
	if err := txn.Commit(); !errors.Is(err, ErrWriteConflict) {
		t.Fatalf("commit of a unique key taken since: %v", err)
	}
	if n, _ := te.Count(t.Context(), "bank", "u", CountRequest{}); n != 1 {
		t.Fatalf("%d documents, want 1", n)
	}
}

// Strict visibility inside a transaction uses each statement's time, and a
// commit never brings back a document that expired or was reaped while
// the transaction held a write of it.
func TestTxnExpiry(t *testing.T) {
	te := newTestEngine(t)
	if _, err := te.CreateIndexes(t.Context(), "app", "s", []IndexSpec{{Key: bson.D{{Key: "expireAt", Value: 1}}, Name: "expireAt_1", Options: bson.D{{Key: "expireAfterSeconds", Value: int32(0)}}}}); err != nil {
		t.Fatal(err)
	}
	at := te.clock.Now().Add(10 * time.Second)
	te.mustInsert("app", "s", bson.D{{Key: "_id", Value: "k1"}, {Key: "expireAt", Value: at}, {Key: "n", Value: int32(0)}},
		bson.D{{Key: "_id", Value: "k2"}, {Key: "expireAt", Value: at}, {Key: "n", Value: int32(0)}})
	set := func(ctx context.Context, id string) (int64, error) {
		res, err := te.Update(ctx, "app", "s", UpdateRequest{Ordered: true, Statements: []UpdateStatement{{
			Filter: bson.D{{Key: "_id", Value: id}},
			Update: bson.D{{Key: "$inc", Value: bson.D{{Key: "n", Value: int32(1)}}}},
		}}})
		return res.N, err
	}
	count := func(ctx context.Context) int64 {
		n, err := te.Count(ctx, "app", "s", CountRequest{})
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	// k1: written in the transaction, then expires before the commit.
	t1 := te.BeginTxn()
	ctx1 := WithTxn(t.Context(), t1)
	if n, err := set(ctx1, "k1"); err != nil || n != 1 {
		t.Fatalf("update before expiry: %d %v", n, err)
	}
	te.clock.Advance(20 * time.Second)
	if n := count(ctx1); n != 0 {
		t.Fatalf("%d documents visible in the transaction after they expired", n)
	}
	if n, err := set(ctx1, "k2"); err != nil || n != 0 {
		t.Fatalf("update of an expired document matched %d (%v)", n, err)
	}
	if err := t1.Commit(); err != nil {
		t.Fatal(err)
	}
	if n := count(t.Context()); n != 0 {
		t.Fatalf("the commit brought back %d expired documents", n)
	}
	// k2: reaped while a transaction holds a write of it.
	te.clock.Advance(-20 * time.Second)
	t2 := te.BeginTxn()
	if n, err := set(WithTxn(t.Context(), t2), "k2"); err != nil || n != 1 {
		t.Fatalf("update before expiry: %d %v", n, err)
	}
	// The deletion is made by a writer that does not wait for the
	// transaction, as the expiry engine's does not.
	if _, err := te.delete(t.Context(), "app", "s", DeleteRequest{Statements: []DeleteStatement{{Filter: bson.D{{Key: "_id", Value: "k2"}}, Limit: 1}}}); err != nil {
		t.Fatal(err)
	}
	if err := t2.Commit(); !errors.Is(err, ErrWriteConflict) {
		t.Fatalf("commit over a reaped document: %v", err)
	}
	if docs := te.storedDocs("app", "s"); len(docs) != 1 {
		t.Fatalf("%d stored documents, want k1 only", len(docs))
	}
}
