package mongo_test

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

func TestSnapshotReadConcernNeedsReplicaSet(t *testing.T) {
	t.Parallel()
	ts := startServer(t)
	db := ts.client(t).Database("test")
	for _, cmd := range []bson.D{
		{{Key: "find", Value: "c"}},
		{{Key: "aggregate", Value: "c"}, {Key: "pipeline", Value: bson.A{}}, {Key: "cursor", Value: bson.D{}}},
		{{Key: "distinct", Value: "c"}, {Key: "key", Value: "x"}},
	} {
		cmdError(t, db, append(cmd, bson.E{Key: "readConcern", Value: bson.D{{Key: "level", Value: "snapshot"}}}),
			123, "NotAReplicaSet", "node needs to be a replica set member to use readConcern: snapshot")
		mustRun(t, db, append(cmd, bson.E{Key: "readConcern", Value: bson.D{{Key: "level", Value: "local"}}}))
	}
}
