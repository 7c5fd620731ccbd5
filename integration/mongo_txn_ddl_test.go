package integration_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/mayfly/mayfly/integration/harness"
)

// A collection and an index created inside WithTransaction: invisible to
// another client until the commit, there with the index after it; an
// aborted transaction's collection leaves nothing; a collection created
// outside meanwhile fails the commit with WriteConflict, labelled
// TransientTransactionError.
func TestMongoTxnCreateCollectionAndIndex(t *testing.T) {
	s := harness.Start(t)
	cl := mongoClient(t, s)
	ctx := context.Background()
	db := cl.Database("ddl")
	names := func() []string {
		t.Helper()
		got, err := db.ListCollectionNames(ctx, bson.D{})
		if err != nil {
			t.Fatal(err)
		}
		slices.Sort(got)
		return got
	}
	sess, err := cl.StartSession()
	if err != nil {
		t.Fatal(err)
	}
	defer sess.EndSession(ctx)
	_, err = sess.WithTransaction(ctx, func(sctx context.Context) (any, error) {
		if err := db.CreateCollection(sctx, "users"); err != nil {
			return nil, err
		}
		users := db.Collection("users")
		if _, err := users.Indexes().CreateOne(sctx, mongo.IndexModel{Keys: bson.D{{Key: "email", Value: 1}}, Options: options.Index().SetUnique(true)}); err != nil {
			return nil, err
		}
		if _, err := users.InsertOne(sctx, bson.D{{Key: "_id", Value: 1}, {Key: "email", Value: "a@x"}}); err != nil {
			return nil, err
		}
		if n, err := users.CountDocuments(sctx, bson.D{}); err != nil || n != 1 {
			t.Errorf("inside the transaction: %d documents, %v", n, err)
		}
		if got := names(); len(got) != 0 {
			t.Errorf("outside before the commit: collections %v", got)
		}
		return nil, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := names(); !slices.Equal(got, []string{"users"}) {
		t.Fatalf("after the commit: collections %v", got)
	}
	specs, err := db.Collection("users").Indexes().ListSpecifications(ctx)
	if err != nil || len(specs) != 2 || specs[1].Name != "email_1" {
		t.Fatalf("indexes after the commit: %v %v", specs, err)
	}
	_, err = db.Collection("users").InsertOne(ctx, bson.D{{Key: "_id", Value: 2}, {Key: "email", Value: "a@x"}})
	if !mongo.IsDuplicateKeyError(err) {
		t.Fatalf("unique index after the commit: %v", err)
	}

	// Abort: the collection the transaction created is gone.
	errAbort := errors.New("abort")
	_, err = sess.WithTransaction(ctx, func(sctx context.Context) (any, error) {
		if _, err := db.Collection("scratch").InsertOne(sctx, bson.D{{Key: "_id", Value: 1}}); err != nil {
			return nil, err
		}
		return nil, errAbort
	})
	if !errors.Is(err, errAbort) {
		t.Fatalf("aborted transaction: %v", err)
	}
	if got := names(); !slices.Equal(got, []string{"users"}) {
		t.Fatalf("after the abort: collections %v", got)
	}

	// A concurrent create of the same name: the commit conflicts.
	sctx := mongo.NewSessionContext(ctx, sess)
	if err := sess.StartTransaction(); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Collection("race").InsertOne(sctx, bson.D{{Key: "_id", Value: 1}}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Collection("race").InsertOne(ctx, bson.D{{Key: "_id", Value: 2}}); err != nil {
		t.Fatal(err)
	}
	err = sess.CommitTransaction(ctx)
	var se mongo.ServerError
	if !errors.As(err, &se) || !se.HasErrorCode(112) || !se.HasErrorLabel("TransientTransactionError") {
		t.Fatalf("commit after a concurrent create: %v, want WriteConflict (112) with TransientTransactionError", err)
	}
	if n, err := db.Collection("race").CountDocuments(ctx, bson.D{}); err != nil || n != 1 {
		t.Fatalf("race has %d documents (%v), want 1", n, err)
	}
}

// A collection and index created in a transaction reach an expanded change
// stream at the commit, before the transaction's insert; an aborted
// transaction's create reaches it not at all.
func TestMongoTxnCreateChangeEvents(t *testing.T) {
	e := startTTL(t, "--change-streams")
	ctx := t.Context()
	db := e.cl.Database("ddlev")
	cs, err := db.Watch(ctx, mongo.Pipeline{}, options.ChangeStream().SetShowExpandedEvents(true))
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close(ctx)
	sess, err := e.cl.StartSession()
	if err != nil {
		t.Fatal(err)
	}
	defer sess.EndSession(ctx)
	errAbort := errors.New("abort")
	_, err = sess.WithTransaction(ctx, func(sctx context.Context) (any, error) {
		if _, err := db.Collection("gone").InsertOne(sctx, bson.D{{Key: "_id", Value: 1}}); err != nil {
			return nil, err
		}
		return nil, errAbort
	})
	if !errors.Is(err, errAbort) {
		t.Fatalf("aborted transaction: %v", err)
	}
	_, err = sess.WithTransaction(ctx, func(sctx context.Context) (any, error) {
		if _, err := db.Collection("c").Indexes().CreateOne(sctx, mongo.IndexModel{Keys: bson.D{{Key: "a", Value: 1}}}); err != nil {
			return nil, err
		}
		_, err := db.Collection("c").InsertOne(sctx, bson.D{{Key: "_id", Value: 1}, {Key: "a", Value: 1}})
		return nil, err
	})
	if err != nil {
		t.Fatal(err)
	}
	evs := nextOps(t, "transaction with DDL", cs, "create", "createIndexes", "insert")
	for _, ev := range evs {
		if got := str(ev, "ns", "coll"); got != "c" {
			t.Fatalf("event on %q, want c: %s", got, ev)
		}
	}
}
