package mongo_test

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// BenchmarkDriver measures round trips through the Go driver, the server
// and the in-memory document database. Allocations count the client's and
// the server's, since both run in the benchmark's process.
func BenchmarkDriver(b *testing.B) {
	ts := startServer(b)
	db := ts.client(b).Database("bench")

	b.Run("insertOne", func(b *testing.B) {
		c := db.Collection("insert")
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			if _, err := c.InsertOne(bg, bson.D{{Key: "_id", Value: i}, {Key: "v", Value: i}, {Key: "s", Value: "payload"}}); err != nil {
				b.Fatal(err)
			}
			i++
		}
	})

	const n = 1000
	c := db.Collection("point")
	docs := make([]any, n)
	for i := range docs {
		docs[i] = bson.D{{Key: "_id", Value: i}, {Key: "v", Value: i}, {Key: "s", Value: "payload"}}
	}
	if _, err := c.InsertMany(bg, docs); err != nil {
		b.Fatal(err)
	}

	b.Run("findOneByID", func(b *testing.B) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			if err := c.FindOne(bg, bson.D{{Key: "_id", Value: i % n}}).Err(); err != nil {
				b.Fatal(err)
			}
			i++
		}
	})

	b.Run("updateOneByID", func(b *testing.B) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			res, err := c.UpdateOne(bg, bson.D{{Key: "_id", Value: i % n}}, bson.D{{Key: "$inc", Value: bson.D{{Key: "v", Value: 1}}}})
			if err != nil || res.ModifiedCount != 1 {
				b.Fatal(res, err)
			}
			i++
		}
	})
}
