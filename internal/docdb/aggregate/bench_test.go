package aggregate_test

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/aggregate"
)

func benchDocs(n int) []bson.D {
	docs := make([]bson.D, n)
	for i := range docs {
		docs[i] = bson.D{{Key: "_id", Value: int32(i)}, {Key: "k", Value: int32(i % 100)}, {Key: "v", Value: float64(i)}, {Key: "s", Value: "abc"}}
	}
	return docs
}

// BenchmarkGroup measures $match + $group + $sort over 10,000 documents.
func BenchmarkGroup(b *testing.B) {
	docs := benchDocs(10000)
	p, err := aggregate.Parse(bson.A{
		bson.D{{Key: "$match", Value: bson.D{{Key: "v", Value: bson.D{{Key: "$gte", Value: 10}}}}}},
		bson.D{{Key: "$group", Value: bson.D{{Key: "_id", Value: "$k"}, {Key: "n", Value: bson.D{{Key: "$sum", Value: 1}}}, {Key: "avg", Value: bson.D{{Key: "$avg", Value: "$v"}}}}}},
		bson.D{{Key: "$sort", Value: bson.D{{Key: "n", Value: -1}}}},
	}, aggregate.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := p.Collect(b.Context(), docs, aggregate.Env{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*len(docs))/b.Elapsed().Seconds(), "docs/s")
}

// BenchmarkProject measures an $addFields with arithmetic and strings.
func BenchmarkProject(b *testing.B) {
	docs := benchDocs(10000)
	p, err := aggregate.Parse(bson.A{
		bson.D{{Key: "$addFields", Value: bson.D{{Key: "w", Value: bson.D{{Key: "$multiply", Value: bson.A{"$v", 2}}}}, {Key: "u", Value: bson.D{{Key: "$toUpper", Value: "$s"}}}}}},
	}, aggregate.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := p.Collect(b.Context(), docs, aggregate.Env{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*len(docs))/b.Elapsed().Seconds(), "docs/s")
}
