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
