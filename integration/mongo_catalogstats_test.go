package integration_test

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/mayfly/mayfly/integration/harness"
)

// Ensure that serverStatus's catalogStats counts the collections as
// MongoDB 7.0 does: user collections by kind, a time-series collection
// once under timeseries with its buckets collection internal, and the
// collections of admin, config and local as internal.
func TestMongoServerStatusCatalogStats(t *testing.T) {
	s := harness.Start(t)
	cl := mongoClient(t, s)
	ctx := t.Context()
	admin := cl.Database("admin")
	stats := func() bson.Raw {
		t.Helper()
		r, err := admin.RunCommand(ctx, bson.D{{Key: "serverStatus", Value: 1}}).Raw()
		if err != nil {
			t.Fatal(err)
		}
		return r.Lookup("catalogStats").Document()
	}
	before := stats()
	db := cl.Database("cat")
	for name, o := range map[string]*options.CreateCollectionOptionsBuilder{
		"plain":     options.CreateCollection(),
		"capped":    options.CreateCollection().SetCapped(true).SetSizeInBytes(4096),
		"clustered": options.CreateCollection().SetClusteredIndex(bson.D{{Key: "key", Value: bson.D{{Key: "_id", Value: 1}}}, {Key: "unique", Value: true}}),
		"weather":   options.CreateCollection().SetTimeSeriesOptions(options.TimeSeries().SetTimeField("t")),
	} {
		if err := db.CreateCollection(ctx, name, o); err != nil {
			t.Fatalf("create %s: %v", name, err)
		}
	}
	if _, err := admin.Collection("settings").InsertOne(ctx, bson.D{{Key: "x", Value: 1}}); err != nil {
		t.Fatal(err)
	}
	after := stats()
	for field, delta := range map[string]int32{
		"collections": 3, "capped": 1, "clustered": 1, "timeseries": 1, "views": 0,
		"internalCollections": 2, "internalViews": 0, "csfle": 0, "queryableEncryption": 0,
	} {
		if got := after.Lookup(field).Int32() - before.Lookup(field).Int32(); got != delta {
			t.Errorf("catalogStats.%s grew by %d, want %d (before %v, after %v)", field, got, delta, before, after)
		}
	}
}
