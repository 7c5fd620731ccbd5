package server

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb"
	"github.com/mayfly/mayfly/internal/kv"
	"github.com/mayfly/mayfly/internal/storage"
)

// fillDir writes documents with a secondary index and Redis keys of
// several types, with expiry, into a new data directory, through the data
// models, and closes it.
func fillDir(t *testing.T) string {
	t.Helper()
	ctx := t.Context()
	dir := t.TempDir()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	st, err := storage.Open(storage.Options{Dir: dir, Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	db, err := docdb.Open(docdb.Options{Store: st, Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	var docs []bson.Raw
	for i := range 50 {
		raw, err := bson.Marshal(bson.D{{Key: "_id", Value: int32(i)}, {Key: "a", Value: bson.A{int32(i), int32(i % 3)}}})
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, raw)
	}
	if _, err := db.Insert(ctx, "app", "c", docdb.InsertRequest{Documents: docs, Ordered: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.CreateIndexes(ctx, "app", "c", []docdb.IndexSpec{{Key: bson.D{{Key: "a", Value: int32(1)}}, Name: "a_1"}}); err != nil {
		t.Fatal(err)
	}
	keys, err := kv.Open(ctx, kv.Options{Store: st, Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	tx := keys.Begin()
	at := time.Now().Add(time.Hour).UnixMilli()
	for _, f := range []func() error{
		func() error { _, err := tx.Set([]byte("s"), []byte("v"), kv.SetOptions{ExpireAt: at}); return err },
		func() error { _, err := tx.SAdd([]byte("set"), [][]byte{[]byte("a"), []byte("b")}); return err },
		func() error { _, err := tx.HSet([]byte("h"), [][]byte{[]byte("f"), []byte("v")}); return err },
		func() error {
			_, err := tx.HExpire([]byte("h"), at, kv.HExpireAlways, [][]byte{[]byte("f")})
			return err
		},
	} {
		if err := f(); err != nil {
			tx.Rollback()
			t.Fatal(err)
		}
	}
	if err := errors.Join(tx.Commit(), keys.Close(), db.Close(), st.Close()); err != nil {
		t.Fatal(err)
	}
	return dir
}

// damage writes records straight into the stopped directory.
func damage(t *testing.T, dir string, f func(b *storage.Batch) error) {
	t.Helper()
	st, err := storage.Open(storage.Options{Dir: dir, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	b := st.NewBatch()
	if err := errors.Join(f(b), b.Commit(), b.Close(), st.Close()); err != nil {
		t.Fatal(err)
	}
}

// Ensure that Check passes a directory written through the data models,
// and reports damage to the documents and to the Redis keyspace, both at
// once, in each model's report format.
func TestCheck(t *testing.T) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	dir := fillDir(t)
	if err := Check(context.Background(), dir, log); err != nil {
		t.Fatalf("healthy directory: %v", err)
	}
	damage(t, dir, func(b *storage.Batch) error {
		// An index entry of no index, and an expiry index entry of no key
		// in logical (and physical) database 0.
		entry := binary.BigEndian.AppendUint64([]byte{storage.PrefixIndex}, 1<<40)
		exp := binary.BigEndian.AppendUint64([]byte{storage.PrefixExpiry, 0}, uint64(time.Now().UnixMilli()))
		return errors.Join(b.Set(append(entry, 1, 2), nil), b.Set(append(exp, "ghost"...), nil))
	})
	err := Check(context.Background(), dir, log)
	if err == nil {
		t.Fatal("Check passed a damaged directory")
	}
	for _, want := range []string{
		"docdb: check: index entries under index id 1099511627776, which no index owns",
		`kv: check db 0 key "ghost": expiry index: the expiry index has an entry at`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("report\n%v\nlacks %q", err, want)
		}
	}
	// Open read the stored counters, which the stray entry did not move,
	// so they agree with the records: the index is the only problem.
	var ce *kv.CheckError
	if !errors.As(err, &ce) || len(ce.Problems) != 1 || !ce.Has(kv.ProblemExpiryIndex) {
		t.Fatalf("report %v: want the expiry index problem alone", err)
	}
}

// Ensure that Check refuses a directory that is not a data directory.
func TestCheckRefusesOtherDirectories(t *testing.T) {
	err := Check(context.Background(), t.TempDir(), nil)
	if err == nil || !strings.Contains(err.Error(), "not a mayfly data directory") {
		t.Fatalf("Check = %v", err)
	}
}
