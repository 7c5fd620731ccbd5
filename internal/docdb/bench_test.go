package docdb

import (
	"context"
	"errors"
	"io"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/storage"
)

// BenchmarkFindEquality compares a find by equality on an indexed field with
// the same find on an unindexed field over a large collection. Explain
// confirms each plan before timing; the docs-examined/op metric shows why
// one is faster.
func BenchmarkFindEquality(b *testing.B) {
	const n = 1_000_000 // the size: the gap grows with the collection
	ctx := context.Background()
	st, err := storage.Open(storage.Options{Dir: "mem", InMemory: true})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	e, err := Open(Options{Store: st})
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	pad := make([]byte, 200)
	for start := 0; start < n; start += 5000 {
		var docs []bson.Raw
		for i := start; i < start+5000; i++ {
			raw, _ := bson.Marshal(d("_id", int32(i), "indexed", int32(i%1000), "plain", int32(i%1000), "pad", bson.Binary{Data: pad}))
			docs = append(docs, raw)
		}
		if _, err := e.Insert(ctx, "bench", "c", InsertRequest{Documents: docs}); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := e.CreateIndexes(ctx, "bench", "c", indexSpecs(d("key", d("indexed", int32(1)), "name", "indexed_1"))); err != nil {
		b.Fatal(err)
	}
	for _, tc := range []struct {
		field, stage string
	}{{"indexed", "FETCH"}, {"plain", "COLLSCAN"}} {
		b.Run(tc.field, func(b *testing.B) {
			req := FindRequest{Filter: d(tc.field, int32(7))}
			out, err := e.ExplainFind(ctx, "bench", "c", req, ExecutionStats)
			if err != nil {
				b.Fatal(err)
			}
			plan := path(b, out, "queryPlanner.winningPlan.stage")
			examined := path(b, out, "executionStats.totalDocsExamined").(int32)
			if plan != tc.stage {
				b.Fatalf("plan %v, want %s", plan, tc.stage)
			}
			b.ReportAllocs()
			for b.Loop() {
				cur, err := e.Find(ctx, "bench", "c", req)
				if err != nil {
					b.Fatal(err)
				}
				got := 0
				for {
					_, err := cur.Next(ctx)
					if errors.Is(err, io.EOF) {
						break
					}
					if err != nil {
						b.Fatal(err)
					}
					got++
				}
				cur.Close()
				if got != n/1000 {
					b.Fatalf("found %d", got)
				}
			}
			b.ReportMetric(float64(examined), "docs-examined/op")
		})
	}
}
