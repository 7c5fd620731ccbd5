package events

import (
	"strconv"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// BenchmarkDiff measures the update description of a one-field update of
// a document of 20 fields, an embedded document of 10 and an array of 20
// embedded documents.
func BenchmarkDiff(b *testing.B) {
	doc := func(v int) bson.D {
		d := bson.D{{Key: "_id", Value: 1}}
		for i := 0; i < 20; i++ {
			d = append(d, bson.E{Key: "f" + strconv.Itoa(i), Value: i})
		}
		sub := bson.D{}
		for i := 0; i < 10; i++ {
			sub = append(sub, bson.E{Key: "s" + strconv.Itoa(i), Value: "value"})
		}
		arr := bson.A{}
		for i := 0; i < 20; i++ {
			arr = append(arr, bson.D{{Key: "k", Value: i}, {Key: "n", Value: "x"}})
		}
		return append(d, bson.E{Key: "sub", Value: sub}, bson.E{Key: "arr", Value: arr}, bson.E{Key: "v", Value: v})
	}
	prev, next := doc(1), doc(2)
	b.ReportAllocs()
	for b.Loop() {
		if u := Diff(prev, next); len(u.UpdatedFields) != 1 {
			b.Fatal(u)
		}
	}
}
