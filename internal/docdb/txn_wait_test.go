package docdb

import (
	"context"
	"errors"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// blockedWrite runs write in a goroutine and returns its outcome channel.
func blockedWrite(t *testing.T, write func() error) <-chan error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- write() }()
	return done
}

func TestWriteWaitsForTxnCommit(t *testing.T) {
	te := newTestEngine(t)
	waiting := notifyWaits(te)
	te.mustInsert("bank", "acct", bson.D{{Key: "_id", Value: "a"}, {Key: "balance", Value: int32(100)}})
	txn := te.BeginTxn()
	if err := te.inc(WithTxn(t.Context(), txn), "acct", "a", 10); err != nil {
		t.Fatal(err)
	}
	done := blockedWrite(t, func() error { return te.inc(t.Context(), "acct", "a", 1000) })
	// The outside write waits until it reaches the owned document; it
	// must not have finished while the transaction is still open.
	waitOwnerWaited(t, waiting, "a")
	select {
	case err := <-done:
		t.Fatalf("outside write finished (%v) while the transaction is open", err)
	default:
	}
	if err := txn.Commit(); err != nil {
		t.Fatalf("commit: %v", err)
	}
	if err := <-done; err != nil {
		t.Fatalf("outside write after commit: %v", err)
	}
	if got := te.balances(t.Context(), "acct"); got["a"] != 1110 {
		t.Fatalf("balance %v, want 1110 (the write applied on the committed version)", got)
	}
}

func TestWriteWaitsForTxnAbort(t *testing.T) {
	te := newTestEngine(t)
	waiting := notifyWaits(te)
	// The collection exists: one the transaction created would not be
	// seen outside, and the outside insert would create its own.
	if err := te.CreateCollection(t.Context(), "bank", "acct", CreateCollectionRequest{}); err != nil {
		t.Fatal(err)
	}
	txn := te.BeginTxn()
	if _, err := te.Insert(WithTxn(t.Context(), txn), "bank", "acct", InsertRequest{Documents: []bson.Raw{raw(t, bson.D{{Key: "_id", Value: "n"}, {Key: "v", Value: int32(1)}})}}); err != nil {
		t.Fatal(err)
	}
	// An outside insert of the same _id waits; after the abort it inserts.
	done := blockedWrite(t, func() error {
		res, err := te.Insert(t.Context(), "bank", "acct", InsertRequest{Documents: []bson.Raw{raw(t, bson.D{{Key: "_id", Value: "n"}, {Key: "v", Value: int32(2)}})}})
		if err == nil && len(res.WriteErrors) > 0 {
			err = res.WriteErrors[0].Err
		}
		return err
	})
	waitOwnerWaited(t, waiting, "n")
	txn.Abort()
	if err := <-done; err != nil {
		t.Fatalf("insert after abort: %v", err)
	}
	if n, _ := te.Count(t.Context(), "bank", "acct", CountRequest{}); n != 1 {
		t.Fatalf("%d documents, want 1", n)
	}
}

func TestWriteWaitForTxnEndsWithContext(t *testing.T) {
	te := newTestEngine(t)
	te.mustInsert("bank", "acct", bson.D{{Key: "_id", Value: "a"}, {Key: "balance", Value: int32(100)}})
	txn := te.BeginTxn()
	defer txn.Abort()
	if err := te.inc(WithTxn(t.Context(), txn), "acct", "a", 10); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	err := te.inc(ctx, "acct", "a", 1)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("blocked write past its deadline: %v", err)
	}
	if got := te.balances(t.Context(), "acct"); got["a"] != 100 {
		t.Fatalf("balance %v, want 100 (nothing written)", got)
	}
}

// waitOwnerWaited waits until a write outside a transaction is waiting
// for the owner of bank.acct's document id.
func waitOwnerWaited(t *testing.T, waiting <-chan struct{}, id string) {
	t.Helper()
	select {
	case <-waiting:
	case <-time.After(10 * time.Second):
		t.Fatalf("no write waits for the transaction owning %q", id)
	}
}

// notifyWaits makes te's writes that start waiting for a transaction
// signal the channel returned.
func notifyWaits(te *testEngine) <-chan struct{} {
	ch := make(chan struct{}, 16)
	te.txns.onWait = func() { ch <- struct{}{} }
	return ch
}

// Ensure that on a replicated store, where single-document writes commit
// in groups (group.go), a write that reaches a document an open
// transaction owns waits for it as well, while a write of another document
// goes on.
func TestGroupedWriteWaitsForTxnCommit(t *testing.T) {
	te := newTestEngine(t)
	waiting := notifyWaits(te)
	te.mustInsert("bank", "acct", bson.D{{Key: "_id", Value: "a"}, {Key: "balance", Value: int32(100)}})
	te.mustInsert("bank", "acct", bson.D{{Key: "_id", Value: "b"}, {Key: "balance", Value: int32(5)}})
	close(gateReplication(t, te).release)

	txn := te.BeginTxn()
	if err := te.inc(WithTxn(t.Context(), txn), "acct", "a", 10); err != nil {
		t.Fatal(err)
	}
	done := blockedWrite(t, func() error { return te.inc(t.Context(), "acct", "a", 1000) })
	waitOwnerWaited(t, waiting, "a")
	if err := te.inc(t.Context(), "acct", "b", 1); err != nil {
		t.Fatalf("write of a document no transaction owns: %v", err)
	}
	select {
	case err := <-done:
		t.Fatalf("outside write finished (%v) while the transaction is open", err)
	default:
	}
	if err := txn.Commit(); err != nil {
		t.Fatalf("commit: %v", err)
	}
	if err := <-done; err != nil {
		t.Fatalf("outside write after commit: %v", err)
	}
	if got := te.balances(t.Context(), "acct"); got["a"] != 1110 || got["b"] != 6 {
		t.Fatalf("balances %v, want a 1110 and b 6", got)
	}
}
