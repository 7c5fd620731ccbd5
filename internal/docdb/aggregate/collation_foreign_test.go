package aggregate_test

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/aggregate"
	"github.com/mayfly/mayfly/internal/docdb/collation"
)

// TestForeignStagesMatchByTheCollation checks that the stages reading
// another collection match its documents by the command's collation, as
// MongoDB's sub-pipelines inherit the expression context's collator, and
// that sub-pipelines ($facet, $unionWith) run under it too. Every case runs
// under strength 2 (case-insensitive) and again without a collation.
func TestForeignStagesMatchByTheCollation(t *testing.T) {
	c, err := collation.Parse(bson.D{{Key: "locale", Value: "en"}, {Key: "strength", Value: 2}})
	if err != nil {
		t.Fatal(err)
	}
	const local = `[{"_id": 1, "k": "ping"}]`
	const foreign = `[{"_id": 1, "k": "PING", "to": "Pong"}, {"_id": 2, "k": "pong", "to": "x"}, {"_id": 3, "k": "Ping"}, {"_id": 4, "k": "other"}]`
	for _, tc := range []struct {
		name, pipeline string
		simple, coll   string
	}{
		{"$lookup localField/foreignField",
			`[{"$lookup": {"from": "f", "localField": "k", "foreignField": "k", "as": "m"}}, {"$project": {"ids": "$m._id"}}]`,
			`[{"_id": 1, "ids": []}]`, `[{"_id": 1, "ids": [1, 3]}]`},
		{"$lookup pipeline with a leading $match (the resolver's hint)",
			`[{"$lookup": {"from": "f", "pipeline": [{"$match": {"k": "PING"}}], "as": "m"}}, {"$project": {"ids": "$m._id"}}]`,
			`[{"_id": 1, "ids": [1]}]`, `[{"_id": 1, "ids": [1, 3]}]`},
		{"$lookup let and $expr $eq",
			`[{"$lookup": {"from": "f", "let": {"k": "$k"}, "pipeline": [{"$match": {"$expr": {"$eq": ["$k", "$$k"]}}}], "as": "m"}}, {"$project": {"ids": "$m._id"}}]`,
			`[{"_id": 1, "ids": []}]`, `[{"_id": 1, "ids": [1, 3]}]`},
		{"$graphLookup frontier values match by the collation",
			`[{"$graphLookup": {"from": "f", "startWith": "$k", "connectFromField": "to", "connectToField": "k", "as": "m"}}, {"$project": {"ids": {"$sortArray": {"input": "$m._id", "sortBy": 1}}}}]`,
			`[{"_id": 1, "ids": []}]`, `[{"_id": 1, "ids": [1, 2, 3]}]`},
		{"$graphLookup restrictSearchWithMatch compares by the collation",
			`[{"$graphLookup": {"from": "f", "startWith": "$k", "connectFromField": "to", "connectToField": "k", "as": "m", "restrictSearchWithMatch": {"to": "PONG"}}}, {"$project": {"ids": "$m._id"}}]`,
			`[{"_id": 1, "ids": []}]`, `[{"_id": 1, "ids": [1]}]`},
		{"$unionWith pipeline",
			`[{"$unionWith": {"coll": "f", "pipeline": [{"$match": {"k": "PING"}}]}}, {"$project": {"k": 1}}]`,
			`[{"_id": 1, "k": "ping"}, {"_id": 1, "k": "PING"}]`, `[{"_id": 1, "k": "ping"}, {"_id": 1, "k": "PING"}, {"_id": 3, "k": "Ping"}]`},
		{"$facet sub-pipelines",
			`[{"$unionWith": "f"}, {"$facet": {"n": [{"$match": {"k": "PING"}}, {"$count": "n"}], "g": [{"$group": {"_id": "$k"}}, {"$count": "n"}]}}]`,
			`[{"n": [{"n": 1}], "g": [{"n": 5}]}]`, `[{"n": [{"n": 3}], "g": [{"n": 3}]}]`},
	} {
		p, err := aggregate.Parse(mustArr(t, tc.pipeline), aggregate.Options{})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		for _, run := range []struct {
			c    *collation.Collator
			want string
		}{{nil, tc.simple}, {c, tc.coll}} {
			st := newMemStore()
			st.put("db", "f", mustDocs(t, foreign)...)
			out, err := p.Collect(t.Context(), mustDocs(t, local), aggregate.Env{DB: "db", Resolver: st, Collation: run.c})
			if err != nil {
				t.Fatalf("%s (collation %v): %v", tc.name, run.c != nil, err)
			}
			if got, want := canon(t, out), canon(t, mustDocs(t, run.want)); got != want {
				t.Errorf("%s (collation %v):\n got  %s\n want %s", tc.name, run.c != nil, got, want)
			}
		}
	}
}
