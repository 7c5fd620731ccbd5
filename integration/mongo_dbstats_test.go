package integration_test

import (
	"fmt"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/integration/harness"
)

// Ensure that dbStats answers MongoDB 7.0's fields: the file system's
// used and total space of the data directory (scaled), and with
// freeStorage the free storage sizes, in MongoDB's order.
func TestMongoDBStatsFields(t *testing.T) {
	s := harness.Start(t)
	cl := mongoClient(t, s)
	ctx := t.Context()
	db := cl.Database("stats")
	fillCollection(t, db.Collection("c"), 3)

	keys := func(r bson.Raw) []string {
		els, err := r.Elements()
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, e := range els {
			out = append(out, e.Key())
		}
		return out
	}
	plain, err := db.RunCommand(ctx, bson.D{{Key: "dbStats", Value: 1}}).Raw()
	if err != nil {
		t.Fatal(err)
	}
	want := "[db collections views objects avgObjSize dataSize storageSize indexes indexSize totalSize scaleFactor fsUsedSize fsTotalSize ok $clusterTime operationTime]"
	if got := fmt.Sprint(keys(plain)); got != want {
		t.Fatalf("dbStats fields %s, want %s", got, want)
	}
	used, total := plain.Lookup("fsUsedSize").Double(), plain.Lookup("fsTotalSize").Double()
	if !(used > 0 && total >= used) {
		t.Fatalf("fsUsedSize %v fsTotalSize %v", used, total)
	}
	scaled, err := db.RunCommand(ctx, bson.D{{Key: "dbStats", Value: 1}, {Key: "scale", Value: 1024}, {Key: "freeStorage", Value: 1}}).Raw()
	if err != nil {
		t.Fatal(err)
	}
	want = "[db collections views objects avgObjSize dataSize storageSize freeStorageSize indexes indexSize indexFreeStorageSize totalSize totalFreeStorageSize scaleFactor fsUsedSize fsTotalSize ok $clusterTime operationTime]"
	if got := fmt.Sprint(keys(scaled)); got != want {
		t.Fatalf("dbStats freeStorage fields %s, want %s", got, want)
	}
	if kt := scaled.Lookup("fsTotalSize").Double(); kt != float64(int64(total)/1024) {
		t.Fatalf("scaled fsTotalSize %v, want %v", kt, float64(int64(total)/1024))
	}
}
