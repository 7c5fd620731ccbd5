package aggregate_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/aggregate"
	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
	"github.com/mayfly/mayfly/internal/docdb/query"
)

// stageCase runs pipeline over input (JSON). want is the JSON array of
// results; a non-zero code means parsing or running must fail with it.
type stageCase struct {
	name     string // the MongoDB rule the case checks
	input    string
	pipeline string
	want     string
	code     mongoerr.Code
	msg      string
}

func runStageCases(t *testing.T, cases []stageCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := "[]"
			if c.input != "" {
				in = c.input
			}
			docs := mustDocs(t, in)
			out, err := func() ([]bson.D, error) {
				p, err := aggregate.Parse(mustArr(t, c.pipeline), aggregate.Options{})
				if err != nil {
					return nil, err
				}
				st := newMemStore()
				return p.Collect(t.Context(), docs, aggregate.Env{DB: "db", Resolver: st, Writer: st})
			}()
			if c.code != 0 {
				e, ok := mongoerr.As(err)
				if !ok {
					t.Fatalf("got %v, %v; want code %d", out, err, c.code)
				}
				if e.Code != c.code || (c.msg != "" && e.Message != c.msg) {
					t.Fatalf("got %d %q; want %d %q", e.Code, e.Message, c.code, c.msg)
				}
				return
			}
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			expect(t, out, c.want)
		})
	}
}

const people = `[
	{"_id": 1, "name": "ann", "age": 30, "tags": ["a", "b"], "addr": {"city": "Izmir", "zip": "35"}},
	{"_id": 2, "name": "bob", "age": 25, "tags": [], "addr": {"city": "Bursa"}},
	{"_id": 3, "name": "cem", "age": 30, "tags": null},
	{"_id": 4, "name": "dan", "tags": "x"}]`

func TestPipelineParseErrors(t *testing.T) {
	runStageCases(t, []stageCase{
		{name: "unknown stage is 40324", pipeline: `[{"$foo": {}}]`, code: 40324, msg: "Unrecognized pipeline stage name: '$foo'"},
		{name: "stage with two fields is 40323", pipeline: `[{"$match": {}, "$limit": 1}]`, code: 40323},
		{name: "$out must be last (40601)", pipeline: `[{"$out": "x"}, {"$match": {}}]`, code: 40601},
		{name: "$merge inside $facet is 40600", pipeline: `[{"$facet": {"a": [{"$merge": "x"}]}}]`, code: 40600},
		{name: "$limit must be positive (15958)", pipeline: `[{"$limit": 0}]`, code: 15958},
		{name: "$limit must be a number (15957)", pipeline: `[{"$limit": "x"}]`, code: 15957},
		{name: "$sort needs a key (15976)", pipeline: `[{"$sort": {}}]`, code: 15976},
		{name: "$sort direction must be 1 or -1 (15975)", pipeline: `[{"$sort": {"a": 2}}]`, code: 15975},
		{name: "$group needs _id (15955)", pipeline: `[{"$group": {"n": {"$sum": 1}}}]`, code: 15955, msg: "a group specification must include an _id"},
		{name: "unknown accumulator (15952)", pipeline: `[{"$group": {"_id": null, "n": {"$foo": 1}}}]`, code: 15952, msg: "unknown group operator '$foo'"},
		{name: "accumulator must be an object (40234)", pipeline: `[{"$group": {"_id": null, "n": 1}}]`, code: 40234},
		{name: "$count field cannot be $-prefixed (40158)", pipeline: `[{"$count": "$n"}]`, code: 40158},
		{name: "$unwind path needs a $ (28818)", pipeline: `[{"$unwind": "a"}]`, code: 28818},
		{name: "$unwind unknown option (28811)", pipeline: `[{"$unwind": {"path": "$a", "foo": 1}}]`, code: 28811},
		{name: "$project mixing inclusion and exclusion (31254)", pipeline: `[{"$project": {"a": 1, "b": 0}}]`, code: 31254,
			msg: "Invalid $project :: caused by :: Cannot do exclusion on field b in inclusion projection"},
		{name: "$project empty (51272)", pipeline: `[{"$project": {}}]`, code: 51272},
		{name: "$project path collision (31250)", pipeline: `[{"$project": {"a": 1, "a.b": 1}}]`, code: 31250},
		{name: "$lookup without as", pipeline: `[{"$lookup": {"from": "x", "localField": "a", "foreignField": "b"}}]`, code: 9},
		{name: "$facet needs arrays (40170)", pipeline: `[{"$facet": {"a": 1}}]`, code: 40170},
		{name: "$bucket boundaries must ascend (40194)", pipeline: `[{"$bucket": {"groupBy": "$a", "boundaries": [5, 1]}}]`, code: 40194},
		{name: "$sortByCount needs an expression (40148)", pipeline: `[{"$sortByCount": "a"}]`, code: 40148},
		{name: "undefined variable in $match $expr (17276)", pipeline: `[{"$match": {"$expr": "$$nope"}}]`, code: 17276},
	})
}

func TestPipelineStages(t *testing.T) {
	runStageCases(t, []stageCase{
		{name: "$match filters with query semantics", input: people, pipeline: `[{"$match": {"age": {"$gte": 30}}}, {"$project": {"_id": 1}}]`, want: `[{"_id": 1}, {"_id": 3}]`},
		{name: "$match with $expr", input: people, pipeline: `[{"$match": {"$expr": {"$eq": ["$name", "bob"]}}}, {"$project": {"name": 1}}]`, want: `[{"_id": 2, "name": "bob"}]`},
		{name: "$project inclusion keeps document order and _id", input: people, pipeline: `[{"$match": {"_id": 1}}, {"$project": {"age": 1, "name": 1}}]`, want: `[{"_id": 1, "name": "ann", "age": 30}]`},
		{name: "$project computed fields follow included ones", input: people, pipeline: `[{"$match": {"_id": 1}}, {"$project": {"up": {"$toUpper": "$name"}, "_id": 0, "age": 1}}]`, want: `[{"age": 30, "up": "ANN"}]`},
		{name: "$project nested inclusion", input: people, pipeline: `[{"$match": {"_id": 1}}, {"$project": {"addr.city": 1}}]`, want: `[{"_id": 1, "addr": {"city": "Izmir"}}]`},
		{name: "$project exclusion", input: people, pipeline: `[{"$match": {"_id": 1}}, {"$project": {"tags": 0, "addr": 0, "_id": 0}}]`, want: `[{"name": "ann", "age": 30}]`},
		{name: "$project $$REMOVE leaves a field out", input: people, pipeline: `[{"$match": {"_id": {"$lte": 2}}}, {"$project": {"zip": {"$ifNull": ["$addr.zip", "$$REMOVE"]}}}]`, want: `[{"_id": 1, "zip": "35"}, {"_id": 2}]`},
		{name: "$addFields keeps positions and appends", input: people, pipeline: `[{"$match": {"_id": 1}}, {"$addFields": {"age": {"$add": ["$age", 1]}, "z": true}}, {"$project": {"tags": 0, "addr": 0}}]`, want: `[{"_id": 1, "name": "ann", "age": 31, "z": true}]`},
		{name: "$set with a nested document merges into the embedded document", input: people, pipeline: `[{"$match": {"_id": 1}}, {"$set": {"addr": {"country": "TR"}}}, {"$project": {"addr": 1}}]`, want: `[{"_id": 1, "addr": {"city": "Izmir", "zip": "35", "country": "TR"}}]`},
		{name: "$set dotted path", input: people, pipeline: `[{"$match": {"_id": 2}}, {"$set": {"addr.zip": "16"}}, {"$project": {"addr": 1}}]`, want: `[{"_id": 2, "addr": {"city": "Bursa", "zip": "16"}}]`},
		{name: "$unset stage", input: people, pipeline: `[{"$match": {"_id": 1}}, {"$unset": ["tags", "addr.zip"]}]`, want: `[{"_id": 1, "name": "ann", "age": 30, "addr": {"city": "Izmir"}}]`},
		{name: "$replaceRoot with newRoot", input: people, pipeline: `[{"$match": {"_id": 1}}, {"$replaceRoot": {"newRoot": "$addr"}}]`, want: `[{"city": "Izmir", "zip": "35"}]`},
		{name: "$replaceWith a non-document is 40228", input: people, pipeline: `[{"$replaceWith": "$name"}]`, code: 40228},
		{name: "$unwind drops null, missing and empty arrays; scalars pass", input: people, pipeline: `[{"$unwind": "$tags"}, {"$project": {"tags": 1}}]`,
			want: `[{"_id": 1, "tags": "a"}, {"_id": 1, "tags": "b"}, {"_id": 4, "tags": "x"}]`},
		{name: "$unwind preserveNullAndEmptyArrays with includeArrayIndex", input: people,
			pipeline: `[{"$unwind": {"path": "$tags", "includeArrayIndex": "i", "preserveNullAndEmptyArrays": true}}, {"$project": {"tags": 1, "i": 1}}]`,
			want:     `[{"_id": 1, "tags": "a", "i": {"$numberLong": "0"}}, {"_id": 1, "tags": "b", "i": {"$numberLong": "1"}}, {"_id": 2, "i": null}, {"_id": 3, "tags": null, "i": null}, {"_id": 4, "tags": "x", "i": null}]`},
		{name: "$group accumulators", input: people, pipeline: `[{"$group": {"_id": "$age", "n": {"$count": {}}, "names": {"$push": "$name"}, "first": {"$first": "$name"}, "last": {"$last": "$name"}}}, {"$sort": {"_id": 1}}]`,
			want: `[{"_id": null, "n": 1, "names": ["dan"], "first": "dan", "last": "dan"}, {"_id": 25, "n": 1, "names": ["bob"], "first": "bob", "last": "bob"}, {"_id": 30, "n": 2, "names": ["ann", "cem"], "first": "ann", "last": "cem"}]`},
		{name: "$group _id null folds everything; $avg/$min/$max skip missing", input: people, pipeline: `[{"$group": {"_id": null, "avg": {"$avg": "$age"}, "min": {"$min": "$age"}, "max": {"$max": "$age"}, "sum": {"$sum": "$age"}}}]`,
			want: `[{"_id": null, "avg": 28.333333333333332, "min": 25, "max": 30, "sum": 85}]`},
		{name: "$group groups numerically equal keys together", input: `[{"k": 1}, {"k": 1.0}, {"k": {"$numberLong": "1"}}]`, pipeline: `[{"$group": {"_id": "$k", "n": {"$sum": 1}}}]`, want: `[{"_id": 1, "n": 3}]`},
		{name: "$group by an object _id", input: people, pipeline: `[{"$match": {"age": 30}}, {"$group": {"_id": {"a": "$age", "c": "$addr.city"}, "s": {"$addToSet": "$age"}}}, {"$sort": {"_id.c": 1}}]`,
			want: `[{"_id": {"a": 30}, "s": [30]}, {"_id": {"a": 30, "c": "Izmir"}, "s": [30]}]`},
		{name: "$sort then $limit keeps the top documents", input: people, pipeline: `[{"$sort": {"age": -1, "_id": -1}}, {"$limit": 2}, {"$project": {"_id": 1}}]`, want: `[{"_id": 3}, {"_id": 1}]`},
		{name: "$sort missing sorts as null, first ascending", input: people, pipeline: `[{"$sort": {"age": 1, "_id": 1}}, {"$project": {"_id": 1}}]`, want: `[{"_id": 4}, {"_id": 2}, {"_id": 1}, {"_id": 3}]`},
		{name: "$skip", input: people, pipeline: `[{"$skip": 3}, {"$project": {"_id": 1}}]`, want: `[{"_id": 4}]`},
		{name: "$count", input: people, pipeline: `[{"$match": {"age": 30}}, {"$count": "n"}]`, want: `[{"n": 2}]`},
		{name: "$count of nothing outputs nothing", input: people, pipeline: `[{"$match": {"age": 99}}, {"$count": "n"}]`, want: `[]`},
		{name: "$sortByCount", input: people, pipeline: `[{"$sortByCount": "$age"}]`, want: `[{"_id": 30, "count": 2}, {"_id": 25, "count": 1}, {"_id": null, "count": 1}]`},
		{name: "$bucket without default fails on an outlier (40066)", input: people, pipeline: `[{"$bucket": {"groupBy": "$age", "boundaries": [26, 40]}}]`, code: 40066},
		{name: "$facet runs sub-pipelines over the same input", input: people, pipeline: `[{"$facet": {"n": [{"$count": "c"}], "old": [{"$match": {"age": 30}}, {"$project": {"_id": 1}}]}}]`,
			want: `[{"n": [{"c": 4}], "old": [{"_id": 1}, {"_id": 3}]}]`},
		{name: "$sample of more than the input returns all", input: people, pipeline: `[{"$sample": {"size": 10}}, {"$count": "n"}]`, want: `[{"n": 4}]`},
		{name: "$lookup with an array local field matches any element", input: `[{"_id": 1, "ids": [2, 3]}]`,
			pipeline: `[{"$lookup": {"from": "none", "localField": "ids", "foreignField": "_id", "as": "r"}}]`, want: `[{"_id": 1, "ids": [2, 3], "r": []}]`},
	})
}

func TestPipelineCancellation(t *testing.T) {
	p, err := aggregate.Parse(mustArr(t, `[{"$group": {"_id": "$k", "n": {"$sum": 1}}}]`), aggregate.Options{})
	if err != nil {
		t.Fatal(err)
	}
	docs := make([]bson.D, 100)
	for i := range docs {
		docs[i] = bson.D{{Key: "k", Value: int32(i % 7)}}
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err = p.Collect(ctx, docs, aggregate.Env{})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v; want context.Canceled", err)
	}
}

func TestLookupLocalForeignSemantics(t *testing.T) {
	st := newMemStore()
	st.put("db", "f", mustDocs(t, `[{"_id": 1, "k": 1}, {"_id": 2, "k": [1, 2]}, {"_id": 3}, {"_id": 4, "k": null}, {"_id": 5, "k": 2.0}]`)...)
	p, err := aggregate.Parse(mustArr(t, `[{"$lookup": {"from": "f", "localField": "x", "foreignField": "k", "as": "r"}}, {"$project": {"ids": "$r._id"}}]`), aggregate.Options{})
	if err != nil {
		t.Fatal(err)
	}
	out, err := p.Collect(t.Context(), mustDocs(t, `[{"_id": "a", "x": 1}, {"_id": "b", "x": [2]}, {"_id": "c"}]`), aggregate.Env{DB: "db", Resolver: st})
	if err != nil {
		t.Fatal(err)
	}
	// Equality follows query rules: arrays in the foreign field match any
	// element, numbers compare across types, and a missing local field
	// matches null and missing foreign fields.
	expect(t, out, `[{"_id": "a", "ids": [1, 2]}, {"_id": "b", "ids": [2, 5]}, {"_id": "c", "ids": [3, 4]}]`)
}

func TestUnionWithAndDocuments(t *testing.T) {
	st := newMemStore()
	st.put("db", "other", mustDocs(t, `[{"_id": 10, "v": 1}, {"_id": 11, "v": 2}]`)...)
	env := aggregate.Env{DB: "db", Resolver: st}
	cases := []struct{ name, pipeline, want string }{
		{"$unionWith appends another collection after the input", `[{"$unionWith": "other"}, {"$project": {"_id": 1}}]`, `[{"_id": 1}, {"_id": 10}, {"_id": 11}]`},
		{"$unionWith runs its pipeline over the other collection", `[{"$unionWith": {"coll": "other", "pipeline": [{"$match": {"v": 2}}]}}, {"$project": {"_id": 1}}]`, `[{"_id": 1}, {"_id": 11}]`},
		{"$documents replaces the input", `[{"$documents": [{"x": 1}, {"x": {"$add": [1, 1]}}]}]`, `[{"x": 1}, {"x": 2}]`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := aggregate.Parse(mustArr(t, c.pipeline), aggregate.Options{})
			if err != nil {
				t.Fatal(err)
			}
			out, err := p.Collect(t.Context(), mustDocs(t, `[{"_id": 1}]`), env)
			if err != nil {
				t.Fatal(err)
			}
			expect(t, out, c.want)
		})
	}
	if _, err := aggregate.Parse(mustArr(t, `[{"$match": {}}, {"$documents": []}]`), aggregate.Options{}); mongoerr.CodeOf(err) != 40602 {
		t.Fatalf("$documents not first: %v", err)
	}
}

func TestHooksForQuery(t *testing.T) {
	vars := aggregate.NewVars(time.Unix(0, 0)).Bind("lim", int32(2))
	f, err := query.ParseFilterWith(mustDocs(t, `[{"$expr": {"$gt": ["$a", "$$lim"]}}]`)[0], query.ParseOptions{Expr: aggregate.ExprCompiler(vars)})
	if err != nil {
		t.Fatal(err)
	}
	if !f.Match(bson.D{{Key: "a", Value: int32(3)}}) || f.Match(bson.D{{Key: "a", Value: int32(1)}}) {
		t.Fatal("$expr with a let variable does not match as expected")
	}
	p, err := query.ParseProjectionWith(mustDocs(t, `[{"s": {"$add": ["$a", "$$lim"]}, "z": "$$REMOVE"}]`)[0], query.ProjectionOptions{Expr: aggregate.ProjectionCompiler(vars)})
	if err != nil {
		t.Fatal(err)
	}
	out, err := p.Apply(bson.D{{Key: "_id", Value: int32(1)}, {Key: "a", Value: int32(3)}}, query.MatchResult{ArrayIndex: -1})
	if err != nil {
		t.Fatal(err)
	}
	expect(t, []bson.D{out}, `[{"_id": 1, "s": 5}]`)
}
