package integration_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/mayfly/mayfly/integration/harness"
)

// BenchmarkChangeStreamWireLatency measures change-event delivery through
// the wire: from an insertOne sent on one client to its event coming out of
// a change stream's waiting getMore on another (the Go driver on both),
// reported as p50 and p99. The event is often out before the insert's
// reply is read, so the figure is the insert's round trip and the
// delivery, overlapped.
func BenchmarkChangeStreamWireLatency(b *testing.B) {
	s := harness.Start(b, "--change-streams")
	ctx := context.Background()
	writer := connectMongo(b, s).Database("bench").Collection("lat")
	reader := connectMongo(b, s).Database("bench").Collection("lat")
	cs, err := reader.Watch(ctx, []bson.D{}, options.ChangeStream().SetMaxAwaitTime(time.Second))
	if err != nil {
		b.Fatal(err)
	}
	readCtx, stop := context.WithCancel(ctx)
	got := make(chan time.Time, 1)
	go func() {
		for cs.Next(readCtx) {
			got <- time.Now()
		}
		close(got)
	}()
	defer func() {
		// The reader stops before the stream closes.
		stop()
		for range got {
		}
		cs.Close(ctx)
	}()
	var lat []time.Duration
	id := 0
	for b.Loop() {
		id++
		start := time.Now()
		if _, err := writer.InsertOne(ctx, bson.D{{Key: "_id", Value: id}}); err != nil {
			b.Fatal(err)
		}
		at, ok := <-got
		if !ok {
			b.Fatalf("stream ended: %v", cs.Err())
		}
		lat = append(lat, at.Sub(start))
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
}
