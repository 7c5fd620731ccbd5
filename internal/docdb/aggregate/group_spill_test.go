package aggregate_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"sort"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/aggregate"
	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
)

// groupInput is 3,000 documents over 200 groups with every kind of value
// the accumulators keep.
func groupInput() []bson.D {
	r := rand.New(rand.NewPCG(3, 4))
	var docs []bson.D
	for i := range 3000 {
		docs = append(docs, bson.D{
			{Key: "_id", Value: int32(i)},
			{Key: "k", Value: fmt.Sprintf("g%03d", r.IntN(200))},
			{Key: "n", Value: r.Int32N(1000)},
			{Key: "f", Value: r.Float64()},
			{Key: "tag", Value: fmt.Sprintf("t%d", r.IntN(5))},
			{Key: "o", Value: bson.D{{Key: fmt.Sprintf("f%d", r.IntN(4)), Value: int32(i)}}},
		})
	}
	return docs
}

const groupPipeline = `[{"$group": {"_id": "$k", "count": {"$count": {}}, "sum": {"$sum": "$n"}, "avg": {"$avg": "$n"},
	"min": {"$min": "$n"}, "max": {"$max": "$f"}, "first": {"$first": "$_id"}, "last": {"$last": "$_id"},
	"ids": {"$push": "$_id"}, "tags": {"$addToSet": "$tag"}, "merged": {"$mergeObjects": "$o"},
	"sd": {"$stdDevPop": "$f"}, "sds": {"$stdDevSamp": "$n"}}}]`

// byID renders results sorted by _id, rounding the floating-point fields
// that a combined partial state computes in another order.
func byID(t *testing.T, docs []bson.D) string {
	t.Helper()
	var lines []string
	for _, d := range docs {
		for i, e := range d {
			if f, ok := e.Value.(float64); ok {
				d[i].Value = math.Round(f*1e9) / 1e9
			}
		}
		b, err := bson.MarshalExtJSON(d, false, false)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, string(b))
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// Ensure that a $group past its memory limit spills runs of partial groups
// and merges them into the same results as in memory, removing its files;
// and that without disk use it fails as MongoDB's does.
func TestGroupSpillsPastMemoryLimit(t *testing.T) {
	p, err := aggregate.Parse(mustArr(t, groupPipeline), aggregate.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	want, err := p.Collect(ctx, groupInput(), aggregate.Env{})
	if err != nil {
		t.Fatal(err)
	}
	if len(want) != 200 {
		t.Fatalf("%d groups", len(want))
	}
	dir := t.TempDir() + "/tmp"
	it, err := p.Run(ctx, aggregate.SliceIterator(groupInput()), aggregate.Env{GroupMemory: aggregate.MemoryLimit{Limit: 8 << 10, AllowDisk: true, Dir: dir}})
	if err != nil {
		t.Fatal(err)
	}
	first, ok, err := it.Next(ctx)
	if err != nil || !ok {
		t.Fatalf("first group: %v %v", ok, err)
	}
	runs, _ := os.ReadDir(dir)
	if len(runs) < 10 {
		t.Fatalf("%d run files for 3,000 documents over an 8 KiB limit", len(runs))
	}
	rest, err := aggregate.Drain(ctx, it)
	if err != nil {
		t.Fatal(err)
	}
	it.Close()
	got := append([]bson.D{first}, rest...)
	if g, w := byID(t, got), byID(t, want); g != w {
		t.Fatalf("spilled $group differs from in memory:\n%s\nwant\n%s", g[:min(len(g), 2000)], w[:min(len(w), 2000)])
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Fatalf("%d run files left", len(left))
	}

	_, err = p.Collect(ctx, groupInput(), aggregate.Env{GroupMemory: aggregate.MemoryLimit{Limit: 8 << 10, Dir: dir}})
	if mongoerr.CodeOf(err) != mongoerr.QueryExceededMemoryLimitNoDiskUseAllowed ||
		err.Error() != "Exceeded memory limit for $group, but didn't allow external sort. Pass allowDiskUse:true to opt in." {
		t.Fatalf("err = %v", err)
	}
	// $sortByCount keeps its order after a spill.
	sbc, err := aggregate.Parse(mustArr(t, `[{"$sortByCount": "$tag"}]`), aggregate.Options{})
	if err != nil {
		t.Fatal(err)
	}
	w2, _ := sbc.Collect(ctx, groupInput(), aggregate.Env{})
	g2, err := sbc.Collect(ctx, groupInput(), aggregate.Env{GroupMemory: aggregate.MemoryLimit{Limit: 200, AllowDisk: true, Dir: dir}})
	if err != nil || fmt.Sprint(g2) != fmt.Sprint(w2) {
		t.Fatalf("$sortByCount spilled %v %v, want %v", g2, err, w2)
	}
}
