package integration_test

import (
	"slices"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// Ensure that under strict visibility a getMore never returns a document
// that expired after the cursor read it: neither the one the server read
// ahead to know whether a batch was the last, nor one a blocking sort held
// back, on find and on aggregate.
func TestCursorGetMoreHidesExpiredReadAhead(t *testing.T) {
	e := startTTL(t, "--set-parameter", "ttlMonitorEnabled=false")
	ctx := t.Context()
	c := e.cl.Database("app").Collection("events")
	if _, err := c.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "t", Value: 1}}, Options: options.Index().SetExpireAfterSeconds(0)}); err != nil {
		t.Fatal(err)
	}
	t0 := e.now()
	var docs []any
	for i := int32(1); i <= 10; i++ {
		due := t0.Add(time.Hour)
		if i <= 5 {
			due = t0.Add(2 * time.Second)
		}
		docs = append(docs, bson.D{{Key: "_id", Value: i}, {Key: "t", Value: dt(due)}, {Key: "r", Value: 100 - i}})
	}
	if _, err := c.InsertMany(ctx, docs); err != nil {
		t.Fatal(err)
	}

	// ids runs a cursor command whose first batch is two documents, moves
	// the clock past the first five documents' expiry, and returns the
	// _id values of the first batch and of the getMore.
	ids := func(t *testing.T, cmd bson.D) (first, more []int32) {
		r := e.mustRun("app", cmd)
		first = batchIDs(t, r.Lookup("cursor", "firstBatch"))
		id := r.Lookup("cursor", "id").Int64()
		if id == 0 {
			t.Fatalf("the first batch closed the cursor: %v", r)
		}
		e.s.Advance(t, 2600*time.Millisecond)
		r = e.mustRun("app", bson.D{{Key: "getMore", Value: id}, {Key: "collection", Value: "events"}})
		more = batchIDs(t, r.Lookup("cursor", "nextBatch"))
		return first, more
	}
	want := func(t *testing.T, first, more []int32, wantFirst, wantMore []int32) {
		t.Helper()
		if !slices.Equal(first, wantFirst) || !slices.Equal(more, wantMore) {
			t.Fatalf("firstBatch %v, getMore %v; want %v then %v", first, more, wantFirst, wantMore)
		}
	}
	live := []int32{6, 7, 8, 9, 10}
	// Each case starts 2.6 s after the previous one: the first five are
	// re-inserted due 2 s ahead.
	reset := func(t *testing.T) {
		now := e.now()
		for i := int32(1); i <= 5; i++ {
			if _, err := c.ReplaceOne(ctx, bson.D{{Key: "_id", Value: i}}, bson.D{{Key: "t", Value: dt(now.Add(2 * time.Second))}, {Key: "r", Value: 100 - i}}, options.Replace().SetUpsert(true)); err != nil {
				t.Fatal(err)
			}
		}
	}

	t.Run("find sorted by _id (index order)", func(t *testing.T) {
		reset(t)
		first, more := ids(t, bson.D{{Key: "find", Value: "events"}, {Key: "sort", Value: bson.D{{Key: "_id", Value: 1}}}, {Key: "batchSize", Value: 2}})
		want(t, first, more, []int32{1, 2}, live)
	})
	t.Run("find with a blocking sort", func(t *testing.T) {
		reset(t)
		first, more := ids(t, bson.D{{Key: "find", Value: "events"}, {Key: "sort", Value: bson.D{{Key: "r", Value: -1}}}, {Key: "batchSize", Value: 2}})
		want(t, first, more, []int32{1, 2}, live)
	})
	t.Run("find with a limit", func(t *testing.T) {
		reset(t)
		first, more := ids(t, bson.D{{Key: "find", Value: "events"}, {Key: "sort", Value: bson.D{{Key: "_id", Value: 1}}}, {Key: "batchSize", Value: 2}, {Key: "limit", Value: 5}})
		// The expired third document does not count against the limit.
		want(t, first, more, []int32{1, 2}, []int32{6, 7, 8})
	})
	t.Run("aggregate $match", func(t *testing.T) {
		reset(t)
		first, more := ids(t, bson.D{{Key: "aggregate", Value: "events"}, {Key: "pipeline", Value: bson.A{
			bson.D{{Key: "$match", Value: bson.D{{Key: "_id", Value: bson.D{{Key: "$gte", Value: 1}}}}}},
		}}, {Key: "cursor", Value: bson.D{{Key: "batchSize", Value: 2}}}})
		want(t, first, more, []int32{1, 2}, live)
	})
	t.Run("aggregate $sort", func(t *testing.T) {
		reset(t)
		first, more := ids(t, bson.D{{Key: "aggregate", Value: "events"}, {Key: "pipeline", Value: bson.A{
			bson.D{{Key: "$sort", Value: bson.D{{Key: "r", Value: -1}}}},
		}}, {Key: "cursor", Value: bson.D{{Key: "batchSize", Value: 2}}}})
		want(t, first, more, []int32{1, 2}, live)
	})
	t.Run("aggregate $sample", func(t *testing.T) {
		reset(t)
		first, more := ids(t, bson.D{{Key: "aggregate", Value: "events"}, {Key: "pipeline", Value: bson.A{
			bson.D{{Key: "$sample", Value: bson.D{{Key: "size", Value: 10}}}},
		}}, {Key: "cursor", Value: bson.D{{Key: "batchSize", Value: 2}}}})
		for _, id := range more {
			if id <= 5 {
				t.Fatalf("getMore returned %d, expired since the sample: firstBatch %v, getMore %v", id, first, more)
			}
		}
		if len(first)+len(more) < 5 {
			t.Fatalf("firstBatch %v, getMore %v: live documents missing", first, more)
		}
	})
	t.Run("driver cursor", func(t *testing.T) {
		reset(t)
		cur, err := c.Find(ctx, bson.D{}, options.Find().SetSort(bson.D{{Key: "_id", Value: 1}}).SetBatchSize(2))
		if err != nil {
			t.Fatal(err)
		}
		defer cur.Close(ctx)
		var got []int32
		for len(got) < 2 && cur.Next(ctx) {
			got = append(got, cur.Current.Lookup("_id").Int32())
		}
		e.s.Advance(t, 2600*time.Millisecond)
		for cur.Next(ctx) {
			got = append(got, cur.Current.Lookup("_id").Int32())
		}
		if err := cur.Err(); err != nil {
			t.Fatal(err)
		}
		if w := []int32{1, 2, 6, 7, 8, 9, 10}; !slices.Equal(got, w) {
			t.Fatalf("driver cursor returned %v, want %v", got, w)
		}
	})
}

// batchIDs returns the int32 _id values of a cursor batch.
func batchIDs(t *testing.T, batch bson.RawValue) []int32 {
	t.Helper()
	vals, err := batch.Array().Values()
	if err != nil {
		t.Fatal(err)
	}
	var out []int32
	for _, v := range vals {
		out = append(out, v.Document().Lookup("_id").Int32())
	}
	return out
}
