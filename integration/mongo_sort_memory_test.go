package integration_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/mayfly/mayfly/integration/harness"
)

// Ensure that a blocking sort past internalQueryMaxBlockingSortMemoryUsageBytes
// spills to the data directory's tmp/ and returns the documents in order,
// that the files go when the cursor is exhausted or killed, and that with
// allowDiskUse false it fails with MongoDB's error, through the Go driver.
func TestMongoSortSpillsPastMemoryLimit(t *testing.T) {
	s := harness.Start(t, "--set-parameter", "internalQueryMaxBlockingSortMemoryUsageBytes=65536")
	cl := mongoClient(t, s)
	ctx := t.Context()
	c := cl.Database("app").Collection("big")
	var docs []any
	for i := range 3000 {
		docs = append(docs, bson.D{{Key: "_id", Value: int32(i)}, {Key: "r", Value: int32((i * 7919) % 3000)}, {Key: "pad", Value: strings.Repeat("p", 200)}})
	}
	if _, err := c.InsertMany(ctx, docs); err != nil {
		t.Fatal(err)
	}
	admin := cl.Database("admin")
	r, err := admin.RunCommand(ctx, bson.D{{Key: "getParameter", Value: 1}, {Key: "internalQueryMaxBlockingSortMemoryUsageBytes", Value: 1}, {Key: "allowDiskUseByDefault", Value: 1}}).Raw()
	if err != nil || r.Lookup("internalQueryMaxBlockingSortMemoryUsageBytes").Int64() != 64<<10 || !r.Lookup("allowDiskUseByDefault").Boolean() {
		t.Fatalf("getParameter %v %v", r, err)
	}
	tmp := filepath.Join(s.Dir, "tmp")
	runFiles := func() int {
		ents, err := os.ReadDir(tmp)
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		return len(ents)
	}

	cur, err := c.Find(ctx, bson.D{}, options.Find().SetSort(bson.D{{Key: "r", Value: 1}}).SetBatchSize(10))
	if err != nil {
		t.Fatal(err)
	}
	if n := runFiles(); n < 10 {
		t.Fatalf("%d run files in %s while a spilled sort's cursor is open", n, tmp)
	}
	var want int32
	for cur.Next(ctx) {
		if got := cur.Current.Lookup("r").Int32(); got != want {
			t.Fatalf("document %d has r %d", want, got)
		}
		want++
	}
	if err := cur.Err(); err != nil || want != 3000 {
		t.Fatalf("read %d documents: %v", want, err)
	}
	if n := runFiles(); n != 0 {
		t.Fatalf("%d run files left after the cursor was exhausted", n)
	}

	// $sort, killed before the end (the driver's Close is killCursors).
	ac, err := c.Aggregate(ctx, mongo.Pipeline{{{Key: "$sort", Value: bson.D{{Key: "r", Value: -1}}}}}, options.Aggregate().SetBatchSize(5))
	if err != nil {
		t.Fatal(err)
	}
	if !ac.Next(ctx) || ac.Current.Lookup("r").Int32() != 2999 {
		t.Fatalf("first $sort document %v %v", ac.Current, ac.Err())
	}
	if runFiles() == 0 {
		t.Fatal("no run files while the $sort cursor is open")
	}
	if err := ac.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if n := runFiles(); n != 0 {
		t.Fatalf("%d run files left after killCursors", n)
	}

	_, err = c.Find(ctx, bson.D{}, options.Find().SetSort(bson.D{{Key: "r", Value: 1}}).SetAllowDiskUse(false))
	wantCommandError(t, err, 292, "Executor error during find command :: caused by :: Sort exceeded memory limit of 65536 bytes, but did not opt in to external sorting.")
	_, err = c.Aggregate(ctx, mongo.Pipeline{{{Key: "$sort", Value: bson.D{{Key: "r", Value: 1}}}}}, options.Aggregate().SetAllowDiskUse(false))
	wantCommandError(t, err, 292, "PlanExecutor error during aggregation :: caused by :: Sort exceeded memory limit of 65536 bytes, but did not opt in to external sorting.")
	if err := admin.RunCommand(ctx, bson.D{{Key: "setParameter", Value: 1}, {Key: "allowDiskUseByDefault", Value: false}, {Key: "internalQueryMaxBlockingSortMemoryUsageBytes", Value: int32(128 << 10)}}).Err(); err != nil {
		t.Fatal(err)
	}
	_, err = c.Find(ctx, bson.D{}, options.Find().SetSort(bson.D{{Key: "r", Value: 1}}))
	wantCommandError(t, err, 292, "Executor error during find command :: caused by :: Sort exceeded memory limit of 131072 bytes, but did not opt in to external sorting.")
	// A sort with a small limit stays within memory.
	cur, err = c.Find(ctx, bson.D{}, options.Find().SetSort(bson.D{{Key: "r", Value: 1}}).SetLimit(3))
	if err != nil {
		t.Fatal(err)
	}
	var top []bson.Raw
	if err := cur.All(ctx, &top); err != nil || len(top) != 3 || top[2].Lookup("r").Int32() != 2 {
		t.Fatalf("top 3 %v %v", top, err)
	}
}

// Ensure that a $group past internalDocumentSourceGroupMaxMemoryBytes
// spills and gives the same groups as in memory, removing its files, and
// that with allowDiskUse false it fails with MongoDB's error.
func TestMongoGroupSpillsPastMemoryLimit(t *testing.T) {
	s := harness.Start(t)
	cl := mongoClient(t, s)
	ctx := t.Context()
	c := cl.Database("app").Collection("events")
	var docs []any
	for i := range 4000 {
		docs = append(docs, bson.D{{Key: "_id", Value: int32(i)}, {Key: "user", Value: int32(i % 500)}, {Key: "n", Value: int32(i % 7)}})
	}
	if _, err := c.InsertMany(ctx, docs); err != nil {
		t.Fatal(err)
	}
	pipeline := mongo.Pipeline{
		{{Key: "$group", Value: bson.D{{Key: "_id", Value: "$user"}, {Key: "total", Value: bson.D{{Key: "$sum", Value: "$n"}}}, {Key: "ids", Value: bson.D{{Key: "$push", Value: "$_id"}}}}}},
		{{Key: "$sort", Value: bson.D{{Key: "_id", Value: 1}}}},
	}
	collect := func(opts ...options.Lister[options.AggregateOptions]) ([]bson.Raw, error) {
		cur, err := c.Aggregate(ctx, pipeline, opts...)
		if err != nil {
			return nil, err
		}
		var out []bson.Raw
		err = cur.All(ctx, &out)
		return out, err
	}
	want, err := collect()
	if err != nil || len(want) != 500 {
		t.Fatalf("in memory: %d groups, %v", len(want), err)
	}
	admin := cl.Database("admin")
	if err := admin.RunCommand(ctx, bson.D{{Key: "setParameter", Value: 1}, {Key: "internalDocumentSourceGroupMaxMemoryBytes", Value: int32(16 << 10)}}).Err(); err != nil {
		t.Fatal(err)
	}
	got, err := collect()
	if err != nil || len(got) != len(want) {
		t.Fatalf("spilled: %d groups, %v", len(got), err)
	}
	for i := range want {
		if !bytes.Equal(got[i], want[i]) {
			t.Fatalf("group %d spilled %v, in memory %v", i, got[i], want[i])
		}
	}
	if ents, _ := os.ReadDir(filepath.Join(s.Dir, "tmp")); len(ents) != 0 {
		t.Fatalf("%d run files left", len(ents))
	}
	_, err = collect(options.Aggregate().SetAllowDiskUse(false))
	wantCommandError(t, err, 292, "PlanExecutor error during aggregation :: caused by :: Exceeded memory limit for $group, but didn't allow external sort. Pass allowDiskUse:true to opt in.")
}
