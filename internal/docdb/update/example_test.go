package update_test

import (
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/aggregate"
	"github.com/mayfly/mayfly/internal/docdb/update"
)

func ExampleUpdate_Apply() {
	u, err := update.Parse(bson.D{
		{Key: "$inc", Value: bson.D{{Key: "visits", Value: int32(1)}}},
		{Key: "$set", Value: bson.D{{Key: "seen.last", Value: "today"}}},
	}, update.Options{})
	if err != nil {
		panic(err)
	}
	doc := bson.D{{Key: "_id", Value: int32(1)}, {Key: "visits", Value: int32(41)}}
	out, modified, err := u.Apply(doc, update.ApplyContext{Now: time.Now()})
	fmt.Println(aggregate.FormatValue(out), modified, err)
	// Output: { _id: 1, visits: 42, seen: { last: "today" } } true <nil>
}

func ExampleUpsertSeed() {
	seed, err := update.UpsertSeed(bson.D{
		{Key: "user", Value: "u42"},
		{Key: "day", Value: bson.D{{Key: "$eq", Value: "2026-11-05"}}},
		{Key: "count", Value: bson.D{{Key: "$lt", Value: int32(10)}}},
	}, false)
	fmt.Println(aggregate.FormatValue(seed), err)
	// Output: { day: "2026-11-05", user: "u42" } <nil>
}
