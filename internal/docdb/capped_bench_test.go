package docdb

import (
	"context"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/storage"
)

// BenchmarkCappedInsert inserts one document at a time into a full capped
// collection, where each insert also removes the oldest document (its
// record and index entries, and its natural-order entry by a range
// deletion), and into an ordinary collection with the same index, which
// only grows.
func BenchmarkCappedInsert(b *testing.B) {
	const full = 10_000
	ctx := context.Background()
	pad := make([]byte, 200)
	for _, tc := range []struct {
		name   string
		create CreateCollectionRequest
	}{
		{"capped-full", CreateCollectionRequest{Capped: &CappedOptions{Size: 1 << 30, Max: full}}},
		{"normal", CreateCollectionRequest{}},
	} {
		b.Run(tc.name, func(b *testing.B) {
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
			if err := e.CreateCollection(ctx, "bench", "c", tc.create); err != nil {
				b.Fatal(err)
			}
			if _, err := e.CreateIndexes(ctx, "bench", "c", indexSpecs(d("key", d("k", int32(1)), "name", "k_1"))); err != nil {
				b.Fatal(err)
			}
			doc := func(i int) bson.Raw {
				raw, _ := bson.Marshal(d("_id", int64(i), "k", int64(i%997), "pad", bson.Binary{Data: pad}))
				return raw
			}
			for start := 0; start < full; start += 1000 {
				var docs []bson.Raw
				for i := start; i < start+1000; i++ {
					docs = append(docs, doc(i))
				}
				if _, err := e.Insert(ctx, "bench", "c", InsertRequest{Documents: docs, Ordered: true}); err != nil {
					b.Fatal(err)
				}
			}
			next := full
			b.ReportAllocs()
			for b.Loop() {
				res, err := e.Insert(ctx, "bench", "c", InsertRequest{Documents: []bson.Raw{doc(next)}, Ordered: true})
				if err != nil || len(res.WriteErrors) > 0 {
					b.Fatalf("insert: %v %v", err, res.WriteErrors)
				}
				next++
			}
			st2, err := e.CollStats(ctx, "bench", "c")
			if err != nil {
				b.Fatal(err)
			}
			if tc.create.Capped != nil && st2.Count != full {
				b.Fatalf("capped collection holds %d documents, want %d", st2.Count, full)
			}
		})
	}
}
