package docdb

import (
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/catalog"
	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
)

// TestValidateCountsAndFindsAMissingEntry checks that Validate counts the
// documents and the entries of every index of a sound collection, and
// reports a removed index entry as a violation, not as an error.
func TestValidateCountsAndFindsAMissingEntry(t *testing.T) {
	te := newTestEngine(t)
	ctx := t.Context()
	var docs []bson.D
	for i := range 10 {
		docs = append(docs, d("_id", int32(i), "x", bson.A{int32(i), int32(i + 100)}))
	}
	te.mustInsert("app", "c", docs...)
	if _, err := te.CreateIndexes(ctx, "app", "c", indexSpecs(d("key", d("x", int32(1)), "name", "x_1"))); err != nil {
		t.Fatal(err)
	}
	v, err := te.Validate(ctx, "app", "c")
	if err != nil || !v.Valid() {
		t.Fatalf("validate: %+v %v", v, err)
	}
	want := []IndexKeyCount{{Name: "_id_", Keys: 10}, {Name: "x_1", Keys: 20}}
	if v.NRecords != 10 || len(v.KeysPerIndex) != 2 || v.KeysPerIndex[0] != want[0] || v.KeysPerIndex[1] != want[1] {
		t.Fatalf("validate counted %d records, %+v", v.NRecords, v.KeysPerIndex)
	}
	if v.UUID.Subtype != bson.TypeBinaryUUID || len(v.UUID.Data) != 16 {
		t.Fatalf("uuid %v", v.UUID)
	}

	meta := te.lookupColl("app", "c").Meta
	ix := meta.Indexes[1]
	p := catalog.IndexPrefix(ix.ID)
	snap := te.store.NewSnapshot()
	it, err := snap.NewIter(p, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !it.First() {
		t.Fatal("no index entry")
	}
	key := append([]byte(nil), it.Key()...)
	val := append([]byte(nil), it.Value()...)
	it.Close()
	snap.Close()
	b := te.store.NewBatch()
	if err := b.Delete(key); err != nil {
		t.Fatal(err)
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	v, err = te.Validate(ctx, "app", "c")
	if err != nil {
		t.Fatal(err)
	}
	if v.Valid() || len(v.Errors) != 1 || !strings.Contains(v.Errors[0], "x_1") {
		t.Fatalf("validate of a collection missing an entry: %+v", v)
	}
	if v.NRecords != 10 || v.KeysPerIndex[1].Keys != 20 {
		t.Fatalf("an invalid collection reports its counters: %+v", v)
	}

	b = te.store.NewBatch()
	if err := b.Set(key, val); err != nil {
		t.Fatal(err)
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	if v, err := te.Validate(ctx, "app", "c"); err != nil || !v.Valid() {
		t.Fatalf("validate after the entry is back: %+v %v", v, err)
	}

	_, err = te.Validate(ctx, "app", "nope")
	var me *mongoerr.Error
	if !errors.As(err, &me) || me.Code != mongoerr.NamespaceNotFound || me.Message != "Collection 'app.nope' does not exist to validate." {
		t.Fatalf("validate of a missing collection: %v", err)
	}
}

// TestCompactFreesDeletedDocuments checks that Compact erases the flushed
// files of deleted documents and reports the bytes it freed.
func TestCompactFreesDeletedDocuments(t *testing.T) {
	te := newTestEngine(t)
	ctx := t.Context()
	const padLen = 1000
	rng := rand.New(rand.NewPCG(1, 2))
	var docs []bson.D
	for i := range 500 {
		pad := make([]byte, padLen)
		for j := range pad {
			pad[j] = byte(rng.Uint32())
		}
		docs = append(docs, d("_id", int32(i), "pad", bson.Binary{Data: pad}))
	}
	te.mustInsert("app", "c", docs...)
	if err := te.store.Flush(); err != nil {
		t.Fatal(err)
	}
	if _, err := te.Delete(ctx, "app", "c", DeleteRequest{Statements: []DeleteStatement{{Filter: d()}}}); err != nil {
		t.Fatal(err)
	}
	freed, err := te.Compact(ctx, "app", "c")
	if err != nil {
		t.Fatal(err)
	}
	if freed < int64(len(docs)*padLen)/2 {
		t.Fatalf("compact freed %d bytes of %d deleted", freed, len(docs)*padLen)
	}
	if again, err := te.Compact(ctx, "app", "c"); err != nil || again != 0 {
		t.Fatalf("a second compact freed %d, %v", again, err)
	}
	_, err = te.Compact(ctx, "app", "nope")
	var me *mongoerr.Error
	if !errors.As(err, &me) || me.Code != mongoerr.NamespaceNotFound {
		t.Fatalf("compact of a missing collection: %v", err)
	}
	if err := te.Check(ctx); err != nil {
		t.Fatal(err)
	}
}
