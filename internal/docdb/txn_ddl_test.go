package docdb

import (
	"context"
	"errors"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
)

// docCount counts the documents of db.coll read through ctx (in a
// transaction or not).
func (te *testEngine) docCount(ctx context.Context, db, coll string) int64 {
	te.t.Helper()
	n, err := te.Count(ctx, db, coll, CountRequest{})
	if err != nil {
		te.t.Fatal(err)
	}
	return n
}

// collNames lists the collection names of db outside any transaction.
func (te *testEngine) collNames(db string) []string {
	te.t.Helper()
	list, err := te.ListCollections(te.t.Context(), db, nil, true)
	if err != nil {
		te.t.Fatal(err)
	}
	var out []string
	for _, d := range list {
		out = append(out, d[0].Value.(string))
	}
	return out
}

func (te *testEngine) txnInsert(ctx context.Context, db, coll string, d bson.D) {
	te.t.Helper()
	res, err := te.Insert(ctx, db, coll, InsertRequest{Documents: []bson.Raw{raw(te.t, d)}, Ordered: true})
	if err != nil || len(res.WriteErrors) > 0 {
		te.t.Fatal(err, res.WriteErrors)
	}
}

var emailIndex = IndexSpec{Key: bson.D{{Key: "email", Value: 1}}, Name: "email_1", Options: bson.D{{Key: "unique", Value: true}}}

// A collection and index created in a transaction are seen inside at once,
// not outside before the commit, and persist after it.
func TestTxnCreateCollectionAndIndexCommit(t *testing.T) {
	te := newTestEngine(t)
	txn := te.BeginTxn()
	ctx := WithTxn(t.Context(), txn)
	if err := te.CreateCollection(ctx, "app", "users", CreateCollectionRequest{}); err != nil {
		t.Fatal(err)
	}
	res, err := te.CreateIndexes(ctx, "app", "users", []IndexSpec{emailIndex})
	if err != nil {
		t.Fatal(err)
	}
	if res.CreatedCollectionAutomatically || res.NumIndexesBefore != 1 || res.NumIndexesAfter != 2 {
		t.Fatalf("createIndexes in the transaction: %+v", res)
	}
	te.txnInsert(ctx, "app", "users", bson.D{{Key: "_id", Value: 1}, {Key: "email", Value: "a@x"}})
	// An array makes the new index multikey within the same commit.
	te.txnInsert(ctx, "app", "users", bson.D{{Key: "_id", Value: 4}, {Key: "email", Value: bson.A{"b@x", "c@x"}}})
	// The new unique index holds inside the transaction.
	dup, _ := te.Insert(ctx, "app", "users", InsertRequest{Documents: []bson.Raw{raw(t, bson.D{{Key: "_id", Value: 2}, {Key: "email", Value: "a@x"}})}})
	if len(dup.WriteErrors) != 1 {
		t.Fatalf("duplicate key inside the transaction: %+v", dup)
	}
	if n := te.docCount(ctx, "app", "users"); n != 2 {
		t.Fatalf("inside: %d documents, want 2", n)
	}
	if names := te.collNames("app"); len(names) != 0 {
		t.Fatalf("outside before commit: collections %v", names)
	}
	if n := te.docCount(t.Context(), "app", "users"); n != 0 {
		t.Fatalf("outside before commit: %d documents", n)
	}
	if err := txn.Commit(); err != nil {
		t.Fatal(err)
	}
	te.reopen()
	if names := te.collNames("app"); len(names) != 1 || names[0] != "users" {
		t.Fatalf("after commit: collections %v", names)
	}
	idx, err := te.ListIndexes(t.Context(), "app", "users")
	if err != nil || len(idx) != 2 {
		t.Fatalf("indexes after commit: %v %v", idx, err)
	}
	res2, _ := te.Insert(t.Context(), "app", "users", InsertRequest{Documents: []bson.Raw{raw(t, bson.D{{Key: "_id", Value: 3}, {Key: "email", Value: "a@x"}})}})
	if len(res2.WriteErrors) != 1 {
		t.Fatalf("unique index after commit: %+v", res2)
	}
	if n := te.docCount(t.Context(), "app", "users"); n != 2 {
		t.Fatalf("after commit: %d documents, want 2", n)
	}
	if c := te.lookupColl("app", "users"); c == nil || !c.Meta.Indexes[1].Multikey {
		t.Fatal("email_1 is not multikey after the commit")
	}
	if n, err := te.Count(t.Context(), "app", "users", CountRequest{Filter: bson.D{{Key: "email", Value: "c@x"}}}); err != nil || n != 1 {
		t.Fatalf("find by an array element after commit: %d %v", n, err)
	}
}

// An insert and an upsert into missing collections create them in the
// transaction; an abort leaves nothing, and the names are free again.
func TestTxnImplicitCreateAbort(t *testing.T) {
	te := newTestEngine(t)
	txn := te.BeginTxn()
	ctx := WithTxn(t.Context(), txn)
	te.txnInsert(ctx, "app", "a", bson.D{{Key: "_id", Value: 1}})
	up, err := te.Update(ctx, "app", "b", UpdateRequest{Ordered: true, Statements: []UpdateStatement{{
		Filter: bson.D{{Key: "_id", Value: 1}}, Update: bson.D{{Key: "$set", Value: bson.D{{Key: "x", Value: 1}}}}, Upsert: true,
	}}})
	if err != nil || len(up.WriteErrors) > 0 {
		t.Fatal(err, up.WriteErrors)
	}
	res, err := te.CreateIndexes(ctx, "app", "c", []IndexSpec{emailIndex})
	if err != nil || !res.CreatedCollectionAutomatically {
		t.Fatalf("createIndexes on a missing collection: %+v %v", res, err)
	}
	if te.docCount(ctx, "app", "a") != 1 || te.docCount(ctx, "app", "b") != 1 {
		t.Fatal("the transaction does not see its own collections")
	}
	txn.Abort()
	if names := te.collNames("app"); len(names) != 0 {
		t.Fatalf("after abort: collections %v", names)
	}
	te.mustInsert("app", "a", bson.D{{Key: "_id", Value: 2}})
	if n := te.docCount(t.Context(), "app", "a"); n != 1 {
		t.Fatalf("recreated after abort: %d documents, want 1", n)
	}
}

// A collection of the same name created outside before the commit makes
// the commit fail and write nothing.
func TestTxnCreateConflict(t *testing.T) {
	te := newTestEngine(t)
	txn := te.BeginTxn()
	ctx := WithTxn(t.Context(), txn)
	te.txnInsert(ctx, "app", "a", bson.D{{Key: "_id", Value: 1}})
	te.txnInsert(ctx, "app", "other", bson.D{{Key: "_id", Value: 1}})
	te.mustInsert("app", "a", bson.D{{Key: "_id", Value: 9}})
	if err := txn.Commit(); !errors.Is(err, ErrWriteConflict) {
		t.Fatalf("commit: %v, want a write conflict", err)
	}
	if names := te.collNames("app"); len(names) != 1 || names[0] != "a" {
		t.Fatalf("after the failed commit: collections %v", names)
	}
	if n := te.docCount(t.Context(), "app", "a"); n != 1 {
		t.Fatalf("app.a has %d documents, want 1", n)
	}
}

func TestTxnCreateRefusals(t *testing.T) {
	te := newTestEngine(t)
	te.mustInsert("app", "old", bson.D{{Key: "_id", Value: 1}})
	if _, err := te.CreateIndexes(t.Context(), "app", "old", []IndexSpec{emailIndex}); err != nil {
		t.Fatal(err)
	}
	txn := te.BeginTxn()
	defer txn.Abort()
	ctx := WithTxn(t.Context(), txn)
	err := te.CreateCollection(ctx, "app", "old", CreateCollectionRequest{})
	wantCode(t, err, mongoerr.NamespaceExists, "Collection app.old already exists.")
	if err := te.CreateCollection(ctx, "app", "new", CreateCollectionRequest{}); err != nil {
		t.Fatal(err)
	}
	err = te.CreateCollection(ctx, "app", "new", CreateCollectionRequest{})
	wantCode(t, err, mongoerr.NamespaceExists, "Collection app.new already exists.")
	err = te.CreateCollection(ctx, "app", "capped", CreateCollectionRequest{Capped: &CappedOptions{Size: 4096}})
	wantCode(t, err, mongoerr.OperationNotSupportedInTransaction, "")

	// An index that exists already is no change; a new one on an existing
	// collection, or on a new one the transaction wrote to, is refused.
	res, err := te.CreateIndexes(ctx, "app", "old", []IndexSpec{emailIndex})
	if err != nil || res.Note != "all indexes already exist" {
		t.Fatalf("existing index: %+v %v", res, err)
	}
	name := IndexSpec{Key: bson.D{{Key: "name", Value: 1}}, Name: "name_1"}
	_, err = te.CreateIndexes(ctx, "app", "old", []IndexSpec{name})
	wantCode(t, err, mongoerr.OperationNotSupportedInTransaction,
		"Cannot create new indexes on existing collection app.old in a multi-document transaction.")
	te.txnInsert(ctx, "app", "new", bson.D{{Key: "_id", Value: 1}})
	_, err = te.CreateIndexes(ctx, "app", "new", []IndexSpec{name})
	wantCode(t, err, mongoerr.OperationNotSupportedInTransaction,
		"Cannot create new indexes on non-empty collection app.new in a multi-document transaction.")
}

// Of two transactions creating the same collection, the second to commit
// conflicts; a collation given to create is the default of the
// transaction's own statements on the collection.
func TestTxnCreateTwoTransactions(t *testing.T) {
	te := newTestEngine(t)
	t1, t2 := te.BeginTxn(), te.BeginTxn()
	ctx1, ctx2 := WithTxn(t.Context(), t1), WithTxn(t.Context(), t2)
	ci := bson.D{{Key: "locale", Value: "en"}, {Key: "strength", Value: int32(2)}}
	if err := te.CreateCollection(ctx1, "app", "c", CreateCollectionRequest{Collation: ci}); err != nil {
		t.Fatal(err)
	}
	te.txnInsert(ctx1, "app", "c", bson.D{{Key: "_id", Value: 1}, {Key: "name", Value: "Ann"}})
	n, err := te.Count(ctx1, "app", "c", CountRequest{Filter: bson.D{{Key: "name", Value: "ANN"}}})
	if err != nil || n != 1 {
		t.Fatalf("find with the default collation in the transaction: %d %v", n, err)
	}
	te.txnInsert(ctx2, "app", "c", bson.D{{Key: "_id", Value: 2}})
	if err := t1.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := t2.Commit(); !errors.Is(err, ErrWriteConflict) {
		t.Fatalf("second commit: %v, want a write conflict", err)
	}
	n, err = te.Count(t.Context(), "app", "c", CountRequest{Filter: bson.D{{Key: "name", Value: "ANN"}}})
	if err != nil || n != 1 {
		t.Fatalf("after the commits: %d %v, want the first transaction's document", n, err)
	}
}
