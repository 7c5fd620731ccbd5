package aggregate

import (
	"reflect"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/collation"
)

func TestComparisonOperatorsUseTheCollation(t *testing.T) {
	c, err := collation.Parse(bson.D{{Key: "locale", Value: "en"}, {Key: "strength", Value: 2}})
	if err != nil {
		t.Fatal(err)
	}
	doc := bson.D{{Key: "a", Value: "ping"}, {Key: "xs", Value: bson.A{"A", "b", "a"}}}
	for _, tc := range []struct {
		name         string
		expr         any
		simple, coll any
	}{
		{"$eq", bson.D{{Key: "$eq", Value: bson.A{"$a", "PING"}}}, false, true},
		{"$cmp", bson.D{{Key: "$cmp", Value: bson.A{"$a", "PING"}}}, int32(1), int32(0)},
		{"$lt across case", bson.D{{Key: "$lt", Value: bson.A{"B", "a"}}}, true, false},
		{"$in", bson.D{{Key: "$in", Value: bson.A{"B", "$xs"}}}, false, true},
		{"$indexOfArray", bson.D{{Key: "$indexOfArray", Value: bson.A{"$xs", "a"}}}, int32(2), int32(0)},
		{"$setUnion keeps the first of equal elements", bson.D{{Key: "$setUnion", Value: bson.A{"$xs", bson.A{"B"}}}}, bson.A{"A", "b", "a", "B"}, bson.A{"A", "b"}},
		{"$setIsSubset", bson.D{{Key: "$setIsSubset", Value: bson.A{bson.A{"B"}, "$xs"}}}, false, true},
		{"$sortArray by value", bson.D{{Key: "$sortArray", Value: bson.D{{Key: "input", Value: bson.A{"b", "A", "a", "B"}}, {Key: "sortBy", Value: int32(1)}}}},
			bson.A{"A", "B", "a", "b"}, bson.A{"A", "a", "b", "B"}},
		{"$sortArray by field", bson.D{{Key: "$sortArray", Value: bson.D{{Key: "input", Value: bson.A{bson.D{{Key: "k", Value: "b"}}, bson.D{{Key: "k", Value: "A"}}}}, {Key: "sortBy", Value: bson.D{{Key: "k", Value: int32(1)}}}}}},
			bson.A{bson.D{{Key: "k", Value: "A"}}, bson.D{{Key: "k", Value: "b"}}}, bson.A{bson.D{{Key: "k", Value: "A"}}, bson.D{{Key: "k", Value: "b"}}}},
		{"$sortArray by field, descending", bson.D{{Key: "$sortArray", Value: bson.D{{Key: "input", Value: bson.A{bson.D{{Key: "k", Value: "B"}}, bson.D{{Key: "k", Value: "a"}}}}, {Key: "sortBy", Value: bson.D{{Key: "k", Value: int32(-1)}}}}}},
			bson.A{bson.D{{Key: "k", Value: "a"}}, bson.D{{Key: "k", Value: "B"}}}, bson.A{bson.D{{Key: "k", Value: "B"}}, bson.D{{Key: "k", Value: "a"}}}},
		{"$max expression", bson.D{{Key: "$max", Value: bson.A{"B", "a"}}}, "a", "B"},
		{"non-strings are unchanged", bson.D{{Key: "$eq", Value: bson.A{int32(1), 1.0}}}, true, true},
	} {
		x, err := Compile(tc.expr)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		vars := NewVars(time.Time{})
		if got, err := x.Eval(vars, doc); err != nil || !reflect.DeepEqual(got, tc.simple) {
			t.Errorf("%s, simple: %v, %v; want %v", tc.name, got, err, tc.simple)
		}
		if got, err := x.Eval(vars.WithCollation(c), doc); err != nil || !reflect.DeepEqual(got, tc.coll) {
			t.Errorf("%s, strength 2: %v, %v; want %v", tc.name, got, err, tc.coll)
		}
	}
}

func TestStagesGroupAndOrderByTheCollation(t *testing.T) {
	c, err := collation.Parse(bson.D{{Key: "locale", Value: "en"}, {Key: "strength", Value: 2}})
	if err != nil {
		t.Fatal(err)
	}
	var docs []bson.D
	for i, w := range []string{"b", "A", "a", "B", "c", "Z"} {
		docs = append(docs, bson.D{{Key: "_id", Value: int32(i)}, {Key: "w", Value: w}, {Key: "g", Value: int32(i % 2)}})
	}
	for _, tc := range []struct {
		name     string
		pipeline string
		want     string
	}{
		{"$min and $max", `[{"$group": {"_id": null, "lo": {"$min": "$w"}, "hi": {"$max": "$w"}}}]`,
			`[{"_id":null,"lo":"A","hi":"Z"}]`},
		{"$addToSet keeps one of equal strings", `[{"$sort": {"_id": 1}}, {"$group": {"_id": null, "s": {"$addToSet": "$w"}}}]`,
			`[{"_id":null,"s":["b","A","c","Z"]}]`},
		{"$bucket boundaries", `[{"$bucket": {"groupBy": "$w", "boundaries": ["B", "C", "Z"], "default": "low"}}]`,
			`[{"_id":"B","count":2},{"_id":"C","count":1},{"_id":"low","count":3}]`},
		{"$match $expr sees the original strings and compares by the collation", `[{"$match": {"$expr": {"$eq": [{"$toUpper": "$w"}, "b"]}}}, {"$project": {"w": 1}}]`,
			`[{"_id":0,"w":"b"},{"_id":3,"w":"B"}]`},
		{"$sort then $match", `[{"$sort": {"w": -1, "_id": 1}}, {"$match": {"w": {"$lte": "B"}}}, {"$project": {"w": 1}}]`,
			`[{"_id":0,"w":"b"},{"_id":3,"w":"B"},{"_id":1,"w":"A"},{"_id":2,"w":"a"}]`},
	} {
		var spec bson.A
		if err := bson.UnmarshalExtJSON([]byte(tc.pipeline), false, &spec); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		pl, err := Parse(spec, Options{})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		out, err := pl.Collect(t.Context(), docs, Env{Collation: c})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		b, _ := bson.MarshalExtJSON(bson.D{{Key: "v", Value: out}}, false, false)
		if got := string(b); got != `{"v":`+tc.want+`}` {
			t.Errorf("%s = %s, want %s", tc.name, got, tc.want)
		}
	}
}
