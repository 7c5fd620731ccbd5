package docdb

import (
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
)

// tempFiles returns the names of the files in the Engine's temporary
// directory.
func tempFiles(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out
}

// sortEngine is an Engine with 2,000 documents {_id: i, r: random, pad}
// and a 16 KiB sort memory limit, far below what a sort of them holds.
func sortEngine(t *testing.T) (*testEngine, string, []int32) {
	dir := t.TempDir() + "/tmp"
	te := newTestEngine(t, func(o *Options) { o.TempDir = dir })
	if err := te.SetSortMemoryLimit(16 << 10); err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(7, 8))
	var docs []bson.D
	byR := make([]int32, 2000)
	for i := range 2000 {
		docs = append(docs, bson.D{{Key: "_id", Value: int32(i)}, {Key: "r", Value: r.Int32N(500)}, {Key: "pad", Value: strings.Repeat("x", 100)}})
		byR[i] = int32(i)
	}
	te.mustInsert("app", "big", docs...)
	// The order by r, ties in _id (scan) order.
	slices.SortStableFunc(byR, func(a, b int32) int { return int(docs[a][1].Value.(int32) - docs[b][1].Value.(int32)) })
	return te, dir, byR
}

// drainIDs reads a cursor to the end and returns the _id values.
func drainIDs(t *testing.T, c Cursor) []int32 {
	t.Helper()
	var out []int32
	for {
		d, err := c.Next(t.Context())
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, d.Lookup("_id").Int32())
	}
}

// Ensure that a find's blocking sort past the memory limit spills sorted
// runs to the temporary directory, returns every document in order, and
// removes its files once the cursor is exhausted or closed.
func TestFindSortSpillsPastMemoryLimit(t *testing.T) {
	te, dir, want := sortEngine(t)
	cur, err := te.Find(t.Context(), "app", "big", FindRequest{Sort: bson.D{{Key: "r", Value: 1}}})
	if err != nil {
		t.Fatal(err)
	}
	first, err := cur.Next(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if n := len(tempFiles(t, dir)); n < 10 {
		t.Fatalf("%d run files for 2,000 documents over a 16 KiB limit", n)
	}
	got := append([]int32{first.Lookup("_id").Int32()}, drainIDs(t, cur)...)
	if !slices.Equal(got, want) {
		t.Fatalf("spilled sort returned %d documents out of order", len(got))
	}
	if f := tempFiles(t, dir); len(f) != 0 {
		t.Fatalf("files left after the cursor was exhausted: %v", f)
	}
	cur.Close()

	// Closed (killed) before the end.
	cur, err = te.Find(t.Context(), "app", "big", FindRequest{Sort: bson.D{{Key: "r", Value: -1}}, Skip: 5})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cur.Next(t.Context()); err != nil {
		t.Fatal(err)
	}
	if len(tempFiles(t, dir)) == 0 {
		t.Fatal("no run files while the cursor is open")
	}
	cur.Close()
	if f := tempFiles(t, dir); len(f) != 0 {
		t.Fatalf("files left after the cursor was closed: %v", f)
	}

	// A limit keeps the sort within memory: the first 10 in order.
	cur, err = te.Find(t.Context(), "app", "big", FindRequest{Sort: bson.D{{Key: "r", Value: 1}}, Limit: 10, AllowDiskUse: new(bool)})
	if err != nil {
		t.Fatal(err)
	}
	if got := drainIDs(t, cur); !slices.Equal(got, want[:10]) {
		t.Fatalf("top 10 %v, want %v", got, want[:10])
	}
	cur.Close()
}

// Ensure that without disk use a find's sort and a $sort past the memory
// limit fail with MongoDB's QueryExceededMemoryLimitNoDiskUseAllowed,
// whether refused by the request or by allowDiskUseByDefault.
func TestSortMemoryLimitWithoutDiskUse(t *testing.T) {
	te, dir, want := sortEngine(t)
	no := false
	cur, err := te.Find(t.Context(), "app", "big", FindRequest{Sort: bson.D{{Key: "r", Value: 1}}, AllowDiskUse: &no})
	if err != nil {
		t.Fatal(err)
	}
	_, err = cur.Next(t.Context())
	wantCode(t, err, mongoerr.QueryExceededMemoryLimitNoDiskUseAllowed, "Sort exceeded memory limit of 16384 bytes, but did not opt in to external sorting.")
	cur.Close()

	sortStage := []bson.D{{{Key: "$sort", Value: bson.D{{Key: "r", Value: 1}}}}}
	te.SetAllowDiskUseByDefault(false)
	cur, err = te.Aggregate(t.Context(), "app", "big", AggregateRequest{Pipeline: sortStage})
	if err == nil {
		_, err = cur.Next(t.Context())
		cur.Close()
	}
	wantCode(t, err, mongoerr.QueryExceededMemoryLimitNoDiskUseAllowed, "Sort exceeded memory limit of 16384 bytes, but did not opt in to external sorting.")
	if mongoerr.QueryExceededMemoryLimitNoDiskUseAllowed.Name() != "QueryExceededMemoryLimitNoDiskUseAllowed" {
		t.Fatalf("codeName %s", mongoerr.QueryExceededMemoryLimitNoDiskUseAllowed.Name())
	}

	// $sort with disk use spills and merges in order, then cleans up.
	yes := true
	cur, err = te.Aggregate(t.Context(), "app", "big", AggregateRequest{Pipeline: sortStage, AllowDiskUse: &yes})
	if err != nil {
		t.Fatal(err)
	}
	first, err := cur.Next(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(tempFiles(t, dir)) < 10 {
		t.Fatalf("$sort wrote %d run files", len(tempFiles(t, dir)))
	}
	got := append([]int32{first.Lookup("_id").Int32()}, drainIDs(t, cur)...)
	if !slices.Equal(got, want) {
		t.Fatalf("$sort spilled returned %d documents out of order", len(got))
	}
	cur.Close()
	if f := tempFiles(t, dir); len(f) != 0 {
		t.Fatalf("files left after $sort: %v", f)
	}
}

// Ensure that Open removes the files a previous run left in the temporary
// directory.
func TestOpenCleansTempDir(t *testing.T) {
	dir := t.TempDir() + "/tmp"
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dir+"/sort-left.run", []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	newTestEngine(t, func(o *Options) { o.TempDir = dir })
	if f := tempFiles(t, dir); len(f) != 0 {
		t.Fatalf("files left at Open: %v", f)
	}
}

// Ensure that explain's SORT stage reports the memory limit and, with
// executionStats, the bytes sorted and the runs a spilled sort wrote.
func TestExplainReportsSortSpills(t *testing.T) {
	te, dir, _ := sortEngine(t)
	out, err := te.ExplainFind(t.Context(), "app", "big", FindRequest{Sort: bson.D{{Key: "r", Value: 1}}}, ExecutionStats)
	if err != nil {
		t.Fatal(err)
	}
	sortStage := path(t, out, "executionStats.executionStages").(bson.D)
	if path(t, sortStage, "stage") != "SORT" || path(t, sortStage, "memLimit") != int32(16<<10) || path(t, sortStage, "usedDisk") != true {
		t.Fatalf("SORT stage %s", fmtDoc(sortStage))
	}
	if n, _ := path(t, sortStage, "spills").(int32); n < 10 {
		t.Fatalf("spills %d", n)
	}
	if n, _ := path(t, sortStage, "totalDataSizeSorted").(int32); n < 2000*100 {
		t.Fatalf("totalDataSizeSorted %d", n)
	}
	if f := tempFiles(t, dir); len(f) != 0 {
		t.Fatalf("explain left files %v", f)
	}
}
