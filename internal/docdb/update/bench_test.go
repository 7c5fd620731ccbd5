package update

import (
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// BenchmarkApply measures a typical operator update on a small document.
func BenchmarkApply(b *testing.B) {
	u, err := Parse(bson.D{
		{Key: "$set", Value: bson.D{{Key: "status", Value: "done"}, {Key: "meta.by", Value: "u1"}}},
		{Key: "$inc", Value: bson.D{{Key: "n", Value: int32(1)}}},
		{Key: "$push", Value: bson.D{{Key: "log", Value: bson.D{{Key: "$each", Value: bson.A{"x"}}, {Key: "$slice", Value: int32(-5)}}}}},
	}, Options{})
	if err != nil {
		b.Fatal(err)
	}
	doc := bson.D{{Key: "_id", Value: int32(1)}, {Key: "status", Value: "new"}, {Key: "n", Value: int32(3)},
		{Key: "meta", Value: bson.D{{Key: "by", Value: "u0"}}}, {Key: "log", Value: bson.A{"a", "b", "c"}}}
	ctx := ApplyContext{Now: time.Unix(0, 0)}
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := u.Apply(doc, ctx); err != nil {
			b.Fatal(err)
		}
	}
}
