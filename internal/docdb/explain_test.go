package docdb

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/catalog"
	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
)

// path reads a nested field of an explain document ("a.b.c").
func path(t testing.TB, doc bson.D, p string) any {
	t.Helper()
	var cur any = doc
	for _, part := range strings.Split(p, ".") {
		d, ok := cur.(bson.D)
		if !ok {
			t.Fatalf("%s: %v is not a document", p, cur)
		}
		v, ok := catalog.FieldOf(d, part)
		if !ok {
			t.Fatalf("%s: no field %s in %s", p, part, fmtDoc(d))
		}
		cur = v
	}
	return cur
}

// stages lists the stage names of a plan tree from the top.
func stages(t testing.TB, tree bson.D) string {
	var out []string
	for tree != nil {
		out = append(out, path(t, tree, "stage").(string))
		next, ok := catalog.FieldOf(tree, "inputStage")
		if !ok {
			break
		}
		tree = next.(bson.D)
	}
	return strings.Join(out, " > ")
}

func TestExplainFind(t *testing.T) {
	te := newTestEngine(t)
	seedPeople(te)
	ctx := t.Context()
	tests := []struct {
		name   string
		req    FindRequest
		stages string
		keys   int32
		docs   int32
		n      int32
	}{
		{"index equality", FindRequest{Filter: d("age", int32(30))}, "FETCH > IXSCAN", 2, 2, 2},
		{"collection scan", FindRequest{Filter: d("age", d("$ne", int32(30)))}, "COLLSCAN", 0, 5, 3},
		{"blocking sort, skip and limit, projection", FindRequest{Filter: d("_id", d("$gt", int32(0))), Sort: d("name", int32(1)), Skip: 1, Limit: 2, Projection: d("name", int32(1))},
			"PROJECTION_SIMPLE > SKIP > SORT > FETCH > IXSCAN", 5, 5, 2},
		{"limit and skip without sort", FindRequest{Skip: 1, Limit: 2}, "LIMIT > SKIP > COLLSCAN", 0, 3, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, err := te.ExplainFind(ctx, "db", "p", tc.req, ExecutionStats)
			if err != nil {
				t.Fatal(err)
			}
			wp := path(t, out, "queryPlanner.winningPlan").(bson.D)
			if got := stages(t, wp); got != tc.stages {
				t.Fatalf("winningPlan %s\n%s", got, fmtDoc(wp))
			}
			es := path(t, out, "executionStats").(bson.D)
			if got := stages(t, path(t, es, "executionStages").(bson.D)); got != tc.stages {
				t.Fatalf("executionStages %s", got)
			}
			if path(t, es, "totalKeysExamined") != tc.keys || path(t, es, "totalDocsExamined") != tc.docs || path(t, es, "nReturned") != tc.n {
				t.Fatalf("stats %s", fmtDoc(es))
			}
			if path(t, out, "queryPlanner.namespace") != "db.p" {
				t.Fatal("namespace")
			}
		})
	}
	out, err := te.ExplainFind(ctx, "db", "p", FindRequest{Filter: d("age", d("$gte", int32(30)))}, QueryPlanner)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := catalog.FieldOf(out, "executionStats"); ok {
		t.Fatal("queryPlanner verbosity ran the plan")
	}
	scan := path(t, out, "queryPlanner.winningPlan.inputStage").(bson.D)
	want := `{ stage: "IXSCAN", keyPattern: { age: 1 }, indexName: "age_1", isMultiKey: false, multiKeyPaths: { age: [] }, isUnique: false, isSparse: false, isPartial: false, indexVersion: 2, direction: "forward", indexBounds: { age: [ "[30, inf.0]" ] } }`
	if fmtDoc(scan) != want {
		t.Fatalf("IXSCAN\n got %s\nwant %s", fmtDoc(scan), want)
	}
}

func TestExplainOtherCommands(t *testing.T) {
	te := newTestEngine(t)
	seedPeople(te)
	ctx := t.Context()
	out, err := te.ExplainCount(ctx, "db", "p", CountRequest{Filter: d("age", int32(30))}, ExecutionStats)
	if err != nil {
		t.Fatal(err)
	}
	if got := stages(t, path(t, out, "executionStats.executionStages").(bson.D)); got != "COUNT > FETCH > IXSCAN" {
		t.Fatalf("count %s", got)
	}
	if path(t, out, "executionStats.executionStages.nCounted") != int32(2) {
		t.Fatalf("nCounted %s", fmtDoc(out))
	}
	out, err = te.ExplainDelete(ctx, "db", "p", DeleteStatement{Filter: d("age", d("$gt", int32(0)))}, ExecutionStats)
	if err != nil {
		t.Fatal(err)
	}
	if path(t, out, "executionStats.executionStages.stage") != "DELETE" || path(t, out, "executionStats.executionStages.nWouldDelete") != int32(4) {
		t.Fatalf("delete %s", fmtDoc(out))
	}
	if n, _ := te.Count(ctx, "db", "p", CountRequest{}); n != 5 {
		t.Fatal("explain deleted documents")
	}
	out, err = te.ExplainUpdate(ctx, "db", "p", UpdateStatement{Filter: d("age", int32(30)), Update: d("$set", d("age", int32(30))), Multi: true}, ExecutionStats)
	if err != nil {
		t.Fatal(err)
	}
	top := path(t, out, "executionStats.executionStages").(bson.D)
	if path(t, top, "nMatched") != int32(2) || path(t, top, "nWouldModify") != int32(1) {
		t.Fatalf("update %s", fmtDoc(top)) // 30.0 -> 30 changes the type, 30 -> 30 does not
	}
	out, err = te.ExplainAggregate(ctx, "db", "p", AggregateRequest{Pipeline: []bson.D{d("$match", d("age", int32(25))), d("$project", d("name", int32(1)))}}, QueryPlanner)
	if err != nil {
		t.Fatal(err)
	}
	st := path(t, out, "stages").(bson.A)
	if len(st) != 2 || path(t, st[0].(bson.D), "$cursor.queryPlanner.winningPlan.inputStage.indexName") != "age_1" {
		t.Fatalf("aggregate %s", fmtDoc(out))
	}
}

func TestAggregate(t *testing.T) {
	te := newTestEngine(t)
	ctx := t.Context()
	// Seed 003: books reference their publisher.
	te.mustInsert("shop", "yayinevleri", d("_id", "deniz-yayin", "ad", "Deniz Yayınları"))
	te.mustInsert("shop", "kitaplar",
		d("_id", int32(1001), "baslik", "Kıyı", "sayfa", int32(210), "yayineviId", "deniz-yayin"),
		d("_id", int32(1002), "baslik", "Liman", "sayfa", int32(184), "yayineviId", "deniz-yayin"))
	te.mustCreateIndexes("shop", "kitaplar", d("key", d("yayineviId", int32(1)), "name", "yayineviId_1"))
	collect := func(coll string, pipeline ...bson.D) []string {
		t.Helper()
		cur, err := te.Aggregate(ctx, "shop", coll, AggregateRequest{Pipeline: pipeline})
		if err != nil {
			t.Fatal(err)
		}
		defer cur.Close()
		var out []string
		for {
			r, err := cur.Next(ctx)
			if errors.Is(err, io.EOF) {
				return out
			}
			if err != nil {
				t.Fatal(err)
			}
			var doc bson.D
			bson.Unmarshal(r, &doc)
			out = append(out, fmtDoc(doc))
		}
	}
	got := collect("yayinevleri",
		d("$lookup", d("from", "kitaplar", "localField", "_id", "foreignField", "yayineviId", "as", "kitaplar")),
		d("$project", d("n", d("$size", "$kitaplar"))))
	if fmt.Sprint(got) != `[{ _id: "deniz-yayin", n: 2 }]` {
		t.Fatalf("$lookup %v", got)
	}
	got = collect("kitaplar", d("$match", d("sayfa", d("$gt", int32(200)))), d("$out", "kalin"))
	if len(got) != 0 {
		t.Fatalf("$out returned %v", got)
	}
	if n, _ := te.Count(ctx, "shop", "kalin", CountRequest{}); n != 1 {
		t.Fatalf("$out wrote %d", n)
	}
	// $out again replaces the contents atomically.
	collect("kitaplar", d("$out", "kalin"))
	if n, _ := te.Count(ctx, "shop", "kalin", CountRequest{}); n != 2 {
		t.Fatalf("second $out wrote %d", n)
	}
	if got := collect("nothing", d("$count", "n")); len(got) != 0 {
		t.Fatalf("missing collection %v", got)
	}
}

func TestCollModErrors(t *testing.T) {
	te := newTestEngine(t)
	ctx := t.Context()
	te.mustCreateIndexes("db", "c",
		d("key", d("a", int32(1)), "name", "a_1"),
		d("key", d("a", int32(1), "b", int32(1)), "name", "a_1_b_1"),
		d("key", d("t", int32(1)), "name", "t_1", "expireAfterSeconds", int32(5)))
	tests := []struct {
		name string
		req  CollModRequest
		code mongoerr.Code
		msg  string
	}{
		{"compound", modTTL("a_1_b_1", 1, false), mongoerr.InvalidOptions, "TTL indexes are single-field indexes, compound indexes do not support TTL"},
		{"_id", modTTL("_id_", 1, false), mongoerr.InvalidOptions, "the _id field does not support TTL indexes"},
		{"hide _id", modHidden("_id_", true, false), mongoerr.InvalidOptions, "can't hide _id index"},
		{"missing index", modHidden("zz", true, false), mongoerr.IndexNotFound, "cannot find index zz for ns db.c"},
		{"missing key pattern", CollModRequest{Index: &CollModIndex{KeyPattern: d("zz", int32(1)), Hidden: ptr(true)}}, mongoerr.IndexNotFound,
			"cannot find index { zz: 1 } for ns db.c"},
		{"collection TTL on a normal collection", CollModRequest{ExpireAfterSeconds: &CollectionExpiry{Seconds: 10}}, mongoerr.InvalidOptions,
			"collMod: expireAfterSeconds is only supported on clustered and time-series collections"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := te.CollMod(ctx, "db", "c", tc.req)
			wantCode(t, err, tc.code, tc.msg)
		})
	}
	reply, err := te.CollMod(ctx, "db", "c", modHidden("a_1", true, false))
	if err != nil || fmtDoc(reply) != "{ hidden_old: false, hidden_new: true }" {
		t.Fatalf("%s %v", fmtDoc(reply), err)
	}
	if !strings.Contains(te.indexList("db", "c"), `name: "a_1", hidden: true`) {
		t.Fatal(te.indexList("db", "c"))
	}
	_, err = te.CollMod(ctx, "db", "missing", CollModRequest{Validation: ValidationOptions{Level: "off"}})
	wantCode(t, err, mongoerr.NamespaceNotFound, "")
}

// TestConcurrentUniqueWriters: many writers race to insert the same unique
// keys; exactly one insert per key wins and the index stays consistent.
func TestConcurrentUniqueWriters(t *testing.T) {
	te := newTestEngine(t)
	te.mustCreateIndexes("db", "u", d("key", d("k", int32(1)), "name", "k_1", "unique", true))
	const writers, keys = 8, 50
	var wg sync.WaitGroup
	var mu sync.Mutex
	wins := map[int]int{}
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for k := 0; k < keys; k++ {
				b, _ := bson.Marshal(d("_id", int32(w*1000+k), "k", int32(k)))
				res, err := te.Insert(context.Background(), "db", "u", InsertRequest{Documents: []bson.Raw{b}})
				if err != nil {
					t.Error(err)
					return
				}
				if res.N == 1 {
					mu.Lock()
					wins[k]++
					mu.Unlock()
				}
			}
		}(w)
	}
	wg.Wait()
	for k := 0; k < keys; k++ {
		if wins[k] != 1 {
			t.Fatalf("key %d inserted %d times", k, wins[k])
		}
	}
}
