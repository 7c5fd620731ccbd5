package mongo_test

import (
	"context"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// TestExecutorErrorWording checks that an error raised while a command's
// plan runs carries MongoDB's context ("Executor error during find command
// :: caused by :: ...", "PlanExecutor error during aggregation ...",
// "Executor error during getMore ...") with its own code, while an error
// found when the command is parsed has none.
func TestExecutorErrorWording(t *testing.T) {
	t.Parallel()
	ts := startServer(t)
	db := ts.client(t).Database("test")
	if _, err := db.Collection("c").InsertMany(context.Background(), []any{
		bson.D{{Key: "_id", Value: 1}, {Key: "a", Value: 1}},
		bson.D{{Key: "_id", Value: 2}, {Key: "a", Value: 2}},
		bson.D{{Key: "_id", Value: 3}, {Key: "a", Value: "x"}},
	}); err != nil {
		t.Fatal(err)
	}
	divide := bson.D{{Key: "$divide", Value: bson.A{1, 0}}}
	add := bson.D{{Key: "$add", Value: bson.A{"$a", 1}}}
	for _, tc := range []struct {
		name     string
		cmd      bson.D
		code     int32
		codeName string
		msg      string
	}{
		{"find: $expr fails while matching", bson.D{{Key: "find", Value: "c"}, {Key: "filter", Value: bson.D{{Key: "$expr", Value: divide}}}},
			2, "BadValue", "Executor error during find command :: caused by :: can't $divide by zero"},
		{"find: a projection expression fails", bson.D{{Key: "find", Value: "c"}, {Key: "projection", Value: bson.D{{Key: "x", Value: add}}}},
			16554, "Location16554", "Executor error during find command :: caused by :: $add only supports numeric or date types, not string"},
		{"aggregate: an expression fails", bson.D{{Key: "aggregate", Value: "c"}, {Key: "pipeline", Value: bson.A{bson.D{{Key: "$project", Value: bson.D{{Key: "x", Value: add}}}}}}, {Key: "cursor", Value: bson.D{}}},
			16554, "Location16554", "PlanExecutor error during aggregation :: caused by :: $add only supports numeric or date types, not string"},
		{"aggregate: a $merge write fails before the reply", bson.D{{Key: "aggregate", Value: 1}, {Key: "pipeline", Value: bson.A{
			bson.D{{Key: "$documents", Value: bson.A{bson.D{{Key: "_id", Value: 1}}}}},
			bson.D{{Key: "$merge", Value: bson.D{{Key: "into", Value: "c"}, {Key: "whenMatched", Value: "fail"}}}},
		}}, {Key: "cursor", Value: bson.D{}}},
			11000, "DuplicateKey", "PlanExecutor error during aggregation :: caused by :: $merge failed due to a DuplicateKey error :: caused by :: E11000 duplicate key error collection: test.c index: _id_ dup key: { _id: 1 }"},
		{"aggregate: a parse error has no context", bson.D{{Key: "aggregate", Value: "c"}, {Key: "pipeline", Value: bson.A{bson.D{{Key: "$project", Value: bson.D{}}}}}, {Key: "cursor", Value: bson.D{}}},
			51272, "Location51272", "Invalid $project :: caused by :: projection specification must have at least one field"},
		{"find: a parse error has no context", bson.D{{Key: "find", Value: "c"}, {Key: "filter", Value: bson.D{{Key: "a", Value: bson.D{{Key: "$foo", Value: 1}}}}}},
			2, "BadValue", "unknown operator: $foo"},
	} {
		t.Run(tc.name, func(t *testing.T) { cmdError(t, db, tc.cmd, tc.code, tc.codeName, tc.msg) })
	}

	// The first batch (one document, and the next read ahead) succeeds;
	// the getMore reaches the document the expression fails on.
	reply := mustRun(t, db, bson.D{{Key: "find", Value: "c"}, {Key: "sort", Value: bson.D{{Key: "_id", Value: 1}}}, {Key: "projection", Value: bson.D{{Key: "x", Value: add}}}, {Key: "batchSize", Value: 1}})
	id := lookup(t, reply, "cursor", "id").Int64()
	cmdError(t, db, bson.D{{Key: "getMore", Value: id}, {Key: "collection", Value: "c"}},
		16554, "Location16554", "Executor error during getMore :: caused by :: $add only supports numeric or date types, not string")
}
