package aggregate_test

import (
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/aggregate"
)

// FuzzParse feeds arbitrary pipelines (as BSON) to Parse and runs the ones
// that parse over a few documents: nothing may panic.
func FuzzParse(f *testing.F) {
	seeds := []string{
		`[{"$match": {"a": 1}}, {"$group": {"_id": "$a", "n": {"$sum": 1}}}]`,
		`[{"$project": {"a": {"$add": ["$a", 1]}, "b": {"$concat": ["$s", "x"]}}}]`,
		`[{"$unwind": {"path": "$arr", "includeArrayIndex": "i", "preserveNullAndEmptyArrays": true}}]`,
		`[{"$addFields": {"d": {"$dateToString": {"date": "$$NOW", "format": "%Y"}}}}, {"$sort": {"d": -1}}, {"$limit": 2}]`,
		`[{"$bucket": {"groupBy": "$a", "boundaries": [0, 5, 10], "default": "x"}}]`,
		`[{"$facet": {"x": [{"$count": "n"}]}}]`,
		`[{"$set": {"m": {"$map": {"input": "$arr", "in": {"$multiply": ["$$this", 2]}}}}}]`,
		`[{"$replaceWith": {"$mergeObjects": ["$$ROOT", {"z": {"$divide": ["$a", 0]}}]}}]`,
		`[{"$project": {"r": {"$reduce": {"input": {"$range": [0, 5]}, "initialValue": 0, "in": {"$add": ["$$value", "$$this"]}}}}}]`,
	}
	for _, s := range seeds {
		var w bson.D
		if err := bson.UnmarshalExtJSON([]byte(`{"p": `+s+`}`), false, &w); err != nil {
			f.Fatal(err)
		}
		b, err := bson.Marshal(w)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	docs := []bson.D{
		{{Key: "_id", Value: int32(1)}, {Key: "a", Value: int32(3)}, {Key: "s", Value: "x"}, {Key: "arr", Value: bson.A{int32(1), "b", bson.D{{Key: "c", Value: 1.5}}}}},
		{{Key: "_id", Value: int32(2)}, {Key: "a", Value: nil}, {Key: "arr", Value: bson.A{}}},
		{{Key: "_id", Value: "k"}, {Key: "a", Value: bson.D{{Key: "x", Value: int64(1)}}}},
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var w bson.D
		if err := bson.Unmarshal(data, &w); err != nil || len(w) == 0 {
			return
		}
		pipe, ok := w[0].Value.(bson.A)
		if !ok {
			return
		}
		p, err := aggregate.Parse(pipe, aggregate.Options{})
		if err != nil {
			return
		}
		st := newMemStore()
		_, _ = p.Collect(t.Context(), docs, aggregate.Env{DB: "db", Resolver: st, Writer: st, Vars: aggregate.NewVars(time.Unix(0, 0))})
	})
}

// FuzzExpr compiles and evaluates arbitrary expressions.
func FuzzExpr(f *testing.F) {
	for _, s := range []string{
		`{"$add": [1, "$a"]}`, `{"$substrCP": ["$s", 1, 2]}`, `{"$convert": {"input": "$s", "to": "int", "onError": 0}}`,
		`{"$dateAdd": {"startDate": "$$NOW", "unit": "month", "amount": 3}}`, `{"$round": [2.5, 1]}`, `{"$slice": ["$arr", -2, 1]}`,
		`{"$arrayToObject": [[["a", 1]]]}`, `{"$switch": {"branches": [{"case": true, "then": 1}]}}`,
	} {
		var w bson.D
		if err := bson.UnmarshalExtJSON([]byte(`{"e": `+s+`}`), false, &w); err != nil {
			f.Fatal(err)
		}
		b, _ := bson.Marshal(w)
		f.Add(b)
	}
	doc := bson.D{{Key: "a", Value: int32(2)}, {Key: "s", Value: "héllo"}, {Key: "arr", Value: bson.A{int32(1), int32(2), int32(3)}}}
	f.Fuzz(func(t *testing.T, data []byte) {
		var w bson.D
		if err := bson.Unmarshal(data, &w); err != nil || len(w) == 0 {
			return
		}
		e, err := aggregate.Compile(w[0].Value)
		if err != nil {
			return
		}
		_, _ = e.Eval(aggregate.NewVars(time.Unix(0, 0)), doc)
	})
}
