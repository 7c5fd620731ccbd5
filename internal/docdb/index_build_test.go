package docdb

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/catalog"
	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
	"github.com/mayfly/mayfly/internal/storage"
)

// diskEngine is an Engine on a store in a real directory, so that the
// directory can be copied mid-operation: the copy is what a SIGKILL at
// that moment would leave (every commit is fsynced).
type diskEngine struct {
	*Engine
	st *storage.Store
}

func openDiskEngine(t *testing.T, dir string) *diskEngine {
	t.Helper()
	st, err := storage.Open(storage.Options{Dir: dir, Durability: storage.DurabilitySync, Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	e, err := Open(Options{Store: st, Logger: quietLogger()})
	if err != nil {
		st.Close()
		t.Fatal(err)
	}
	return &diskEngine{Engine: e, st: st}
}

func (d *diskEngine) close(t *testing.T) {
	t.Helper()
	if err := errors.Join(d.Engine.Close(), d.st.Close()); err != nil {
		t.Fatal(err)
	}
}

func quietLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// copyDir copies the files of a store's directory (not its lock) to a new
// directory. The caller makes sure nothing commits meanwhile.
func copyDir(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() == "mayfly.lock" {
			return err
		}
		b, err := os.ReadFile(path)
		if errors.Is(err, fs.ErrNotExist) {
			return nil // an obsolete file Pebble removed meanwhile
		}
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o640)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// rawIndexKeys counts the keys under PrefixIndex and the build records of
// the store in dir, opened without the document model (so without the
// recovery Open runs).
func rawIndexKeys(t *testing.T, dir string) (entries, builds int) {
	t.Helper()
	st, err := storage.Open(storage.Options{Dir: dir, Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	count := func(lo []byte) int {
		it, err := st.NewIter(lo, storage.PrefixEnd(lo))
		if err != nil {
			t.Fatal(err)
		}
		defer it.Close()
		n := 0
		for ok := it.First(); ok; ok = it.Next() {
			n++
		}
		return n
	}
	return count([]byte{storage.PrefixIndex}), count([]byte{storage.PrefixCatalog, catalog.KeyBuild})
}

func indexNames(t *testing.T, e *Engine, db, coll string) []string {
	t.Helper()
	specs, err := e.ListIndexes(t.Context(), db, coll)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, s := range specs {
		name, _ := catalog.FieldOf(s, "name")
		out = append(out, name.(string))
	}
	return out
}

// Ensure that a crash in the middle of createIndexes leaves no trace of
// the index once the store reopens: the copies of the data directory taken
// between the build's batches hold entries of the unpublished index (and
// its build record), and Open removes them all, so the index does not
// exist, Check finds nothing wrong and the same index can be built again.
// A copy taken after createIndexes returned has the complete index.
func TestIndexBuildCrashLeavesNoEntries(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	d := openDiskEngine(t, dir)
	// Two index keys per document (a multikey field), 2.5 batches of
	// documents: the build commits twice before its last batch.
	docs := make([]bson.Raw, 0, 2*maxBatchDocs+maxBatchDocs/2)
	for i := range cap(docs) {
		n := int32(i + 1) // not 0, which is -0
		docs = append(docs, raw(t, bson.D{{Key: "_id", Value: n}, {Key: "a", Value: n % 10}, {Key: "b", Value: bson.A{n, -n}}}))
	}
	if _, err := d.Insert(ctx, "db", "c", InsertRequest{Documents: docs, Ordered: true}); err != nil {
		t.Fatal(err)
	}
	var images []string
	d.buildBatchHook = func(n int) {
		images = append(images, copyDir(t, dir))
		// A build in progress is not a problem.
		if err := d.Check(ctx); err != nil {
			t.Errorf("Check during the build: %v", err)
		}
	}
	spec := bson.D{{Key: "key", Value: bson.D{{Key: "b", Value: int32(1)}, {Key: "a", Value: int32(1)}}}, {Key: "name", Value: "b_1_a_1"}}
	if _, err := d.CreateIndexes(ctx, "db", "c", indexSpecs(spec)); err != nil {
		t.Fatal(err)
	}
	d.buildBatchHook = nil
	if len(images) != 2 {
		t.Fatalf("the build committed %d intermediate batches, want 2", len(images))
	}
	after := copyDir(t, dir)
	d.close(t)

	for i, img := range images {
		entries, builds := rawIndexKeys(t, img)
		if want := 2 * maxBatchDocs * (i + 1); entries != want || builds != 1 {
			t.Fatalf("crash image %d holds %d index entries and %d build records, want %d and 1: it does not show the crash", i, entries, builds, want)
		}
		r := openDiskEngine(t, img)
		if got := indexNames(t, r.Engine, "db", "c"); len(got) != 1 {
			t.Fatalf("crash image %d: indexes %v after the restart, want only _id_", i, got)
		}
		if err := r.Check(ctx); err != nil {
			t.Fatalf("crash image %d: %v", i, err)
		}
		if _, err := r.CreateIndexes(ctx, "db", "c", indexSpecs(spec)); err != nil {
			t.Fatalf("crash image %d: build again: %v", i, err)
		}
		if err := r.Check(ctx); err != nil {
			t.Fatalf("crash image %d, built again: %v", i, err)
		}
		r.close(t)
		entries, builds = rawIndexKeys(t, img)
		if entries != 2*cap(docs) || builds != 0 {
			t.Fatalf("crash image %d, built again: %d entries and %d build records, want %d and 0", i, entries, builds, 2*cap(docs))
		}
	}

	entries, builds := rawIndexKeys(t, after)
	if entries != 2*cap(docs) || builds != 0 {
		t.Fatalf("after the build: %d entries and %d build records, want %d and 0", entries, builds, 2*cap(docs))
	}
	r := openDiskEngine(t, after)
	defer r.close(t)
	if got := indexNames(t, r.Engine, "db", "c"); len(got) != 2 || got[1] != "b_1_a_1" {
		t.Fatalf("after the build: indexes %v", got)
	}
	if err := r.Check(ctx); err != nil {
		t.Fatal(err)
	}
}

// Ensure that the entries an interrupted build leaves without its build
// record (what a build did before the records existed) are found by Check:
// they are owned by no index.
func TestCheckFindsEntriesOfAnInterruptedBuild(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	d := openDiskEngine(t, dir)
	docs := make([]bson.Raw, 0, maxBatchDocs+1)
	for i := range cap(docs) {
		docs = append(docs, raw(t, bson.D{{Key: "_id", Value: int32(i)}, {Key: "a", Value: int32(i)}}))
	}
	if _, err := d.Insert(ctx, "db", "c", InsertRequest{Documents: docs, Ordered: true}); err != nil {
		t.Fatal(err)
	}
	var img string
	d.buildBatchHook = func(int) { img = copyDir(t, dir) }
	if _, err := d.CreateIndexes(ctx, "db", "c", indexSpecs(bson.D{{Key: "key", Value: bson.D{{Key: "a", Value: int32(1)}}}, {Key: "name", Value: "a_1"}})); err != nil {
		t.Fatal(err)
	}
	d.close(t)

	st, err := storage.Open(storage.Options{Dir: img, Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	b := st.NewBatch()
	lo := []byte{storage.PrefixCatalog, catalog.KeyBuild}
	if err := b.DeleteRange(lo, storage.PrefixEnd(lo)); err != nil {
		t.Fatal(err)
	}
	if err := errors.Join(b.Commit(), b.Close(), st.Close()); err != nil {
		t.Fatal(err)
	}
	r := openDiskEngine(t, img)
	defer r.close(t)
	err = r.Check(ctx)
	if err == nil || !strings.Contains(err.Error(), "which no index owns") {
		t.Fatalf("Check = %v, want index entries that no index owns", err)
	}
}

// Ensure that a build that fails after committing batches (a duplicate key
// in a unique index, found past the first batch) removes its entries and
// its build record.
func TestFailedBuildRemovesItsEntries(t *testing.T) {
	te := newTestEngine(t)
	docs := make([]bson.D, 0, maxBatchDocs+10)
	for i := range cap(docs) {
		docs = append(docs, bson.D{{Key: "_id", Value: int32(i)}, {Key: "a", Value: int32(min(i, maxBatchDocs+5))}})
	}
	te.mustInsert("db", "c", docs...)
	batches := 0
	te.buildBatchHook = func(int) { batches++ }
	_, err := te.CreateIndexes(te.t.Context(), "db", "c", indexSpecs(bson.D{{Key: "key", Value: bson.D{{Key: "a", Value: int32(1)}}}, {Key: "name", Value: "a_1"}, {Key: "unique", Value: true}}))
	wantCode(t, err, mongoerr.DuplicateKey, "")
	if batches != 1 {
		t.Fatalf("the build committed %d batches before failing, want 1", batches)
	}
	for _, lo := range [][]byte{{storage.PrefixIndex}, {storage.PrefixCatalog, catalog.KeyBuild}} {
		it, err := te.store.NewIter(lo, storage.PrefixEnd(lo))
		if err != nil {
			t.Fatal(err)
		}
		if it.First() {
			t.Errorf("key %x left behind by the failed build", it.Key())
		}
		it.Close()
	}
}

// Ensure that Check reports keys that nothing in the catalog owns, and a
// build record that contradicts the catalog.
func TestCheckFindsUnownedKeys(t *testing.T) {
	u64 := func(prefix []byte, v uint64) []byte { return binary.BigEndian.AppendUint64(prefix, v) }
	fixed := func(v []byte) func(uint64) []byte { return func(uint64) []byte { return v } }
	tests := []struct {
		name string
		key  func(collID, indexID uint64) []byte
		val  func(collID uint64) []byte
		want string
	}{
		{"entry of no index", func(_, _ uint64) []byte { return catalog.EntryKey(999, []byte{1}, []byte{2}) }, fixed(nil), "index entries under index id 999, which no index owns"},
		{"document of no collection", func(_, _ uint64) []byte { return catalog.DocKey(998, []byte{2}) }, fixed([]byte{5, 0, 0, 0, 0}), "documents under collection id 998, which no collection owns"},
		{"counters of no collection", func(_, _ uint64) []byte { return catalog.StatsKey(997) }, fixed(make([]byte, 16)), "counters of collection id 997, which does not exist"},
		{"build of no collection", func(_, _ uint64) []byte { return buildRecordKey(996) }, fixed(u64(nil, 995)), "index 996 is being built for collection 995, which does not exist"},
		{"build that is not running", func(_, _ uint64) []byte { return buildRecordKey(996) }, func(c uint64) []byte { return u64(nil, c) }, "index 996 of collection"},
		{"build of a published index", func(_, ix uint64) []byte { return buildRecordKey(ix) }, fixed(u64(nil, 1)), "is published but still has a build record"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			te := newTestEngine(t)
			te.mustInsert("db", "c", bson.D{{Key: "_id", Value: int32(1)}, {Key: "a", Value: int32(1)}})
			if _, err := te.CreateIndexes(t.Context(), "db", "c", indexSpecs(bson.D{{Key: "key", Value: bson.D{{Key: "a", Value: int32(1)}}}, {Key: "name", Value: "a_1"}})); err != nil {
				t.Fatal(err)
			}
			if err := te.Check(t.Context()); err != nil {
				t.Fatalf("before the damage: %v", err)
			}
			m := te.lookupColl("db", "c").Meta
			b := te.store.NewBatch()
			if err := b.Set(tt.key(m.ID, m.Indexes[1].ID), tt.val(m.ID)); err != nil {
				t.Fatal(err)
			}
			if err := errors.Join(b.Commit(), b.Close()); err != nil {
				t.Fatal(err)
			}
			err := te.Check(t.Context())
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Check = %v, want %q", err, tt.want)
			}
			// Undo the damage for the cleanup's check.
			b = te.store.NewBatch()
			if err := b.Delete(tt.key(m.ID, m.Indexes[1].ID)); err != nil {
				t.Fatal(err)
			}
			if err := errors.Join(b.Commit(), b.Close()); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// Ensure that Open removes an interrupted build from a store in which the
// build record and some entries committed but the catalog did not: the
// state a crash in the middle of createIndexes leaves.
func TestOpenRemovesInterruptedBuild(t *testing.T) {
	te := newTestEngine(t)
	te.mustInsert("db", "c", bson.D{{Key: "_id", Value: int32(1)}, {Key: "a", Value: int32(1)}})
	m := te.lookupColl("db", "c").Meta
	const id = 500
	b := te.store.NewBatch()
	for _, err := range []error{
		b.Set(buildRecordKey(id), binary.BigEndian.AppendUint64(nil, m.ID)),
		b.Set(catalog.EntryKey(id, []byte{0x10}, []byte{0x11}), nil),
		b.Set(catalog.EntryKey(id, []byte{0x12}, []byte{0x13}), nil),
		b.Commit(), b.Close(),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	err := te.Check(context.Background())
	if err == nil || !strings.Contains(err.Error(), "no build is running") {
		t.Fatalf("Check = %v, want the build record of no running build", err)
	}
	te.reopen()
	for _, lo := range [][]byte{catalog.IndexPrefix(id), buildRecordKey(id)} {
		it, err := te.store.NewIter(lo, storage.PrefixEnd(lo))
		if err != nil {
			t.Fatal(err)
		}
		if it.First() {
			t.Errorf("key %x of the interrupted build survived Open", it.Key())
		}
		it.Close()
	}
}
