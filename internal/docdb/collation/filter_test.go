package collation

import (
	"reflect"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

func TestFilterMapsComparedStringsAndMovesRegexes(t *testing.T) {
	c, err := Parse(bson.D{{Key: "locale", Value: "en"}, {Key: "strength", Value: 2}})
	if err != nil {
		t.Fatal(err)
	}
	re := bson.Regex{Pattern: "^p"}
	orig := func(path string) string { return OriginalField + "." + path }
	for _, tc := range []struct {
		name   string
		filter bson.D
		want   bson.D
	}{
		{"equality value", bson.D{{Key: "a", Value: "PING"}}, bson.D{{Key: "a", Value: c.Key("ping")}}},
		{"comparison operands", bson.D{{Key: "a", Value: bson.D{{Key: "$gt", Value: "B"}, {Key: "$in", Value: bson.A{"X", int32(1)}}}}},
			bson.D{{Key: "a", Value: bson.D{{Key: "$gt", Value: c.Key("b")}, {Key: "$in", Value: bson.A{c.Key("x"), int32(1)}}}}}},
		{"operators that compare no strings stay", bson.D{{Key: "a", Value: bson.D{{Key: "$type", Value: "string"}, {Key: "$exists", Value: true}}}},
			bson.D{{Key: "a", Value: bson.D{{Key: "$type", Value: "string"}, {Key: "$exists", Value: true}}}}},
		{"regex value moves to the original text", bson.D{{Key: "a", Value: re}}, bson.D{{Key: orig("a"), Value: re}}},
		{"$regex with $options moves, $ne stays", bson.D{{Key: "a", Value: bson.D{{Key: "$regex", Value: "^p"}, {Key: "$options", Value: "i"}, {Key: "$ne", Value: "X"}}}},
			bson.D{{Key: orig("a"), Value: bson.D{{Key: "$regex", Value: "^p"}, {Key: "$options", Value: "i"}}}, {Key: "a", Value: bson.D{{Key: "$ne", Value: c.Key("x")}}}}},
		{"regex under $or moves", bson.D{{Key: "$or", Value: bson.A{bson.D{{Key: "a", Value: re}}}}},
			bson.D{{Key: "$or", Value: bson.A{bson.D{{Key: orig("a"), Value: re}}}}}},
		{"regex under $elemMatch stays on the element", bson.D{{Key: "a", Value: bson.D{{Key: "$elemMatch", Value: bson.D{{Key: "b", Value: re}}}}}},
			bson.D{{Key: "a", Value: bson.D{{Key: "$elemMatch", Value: bson.D{{Key: "b", Value: re}}}}}}},
		{"$expr stays: it compares by the collation itself", bson.D{{Key: "$expr", Value: bson.D{{Key: "$eq", Value: bson.A{"$a", "PING"}}}}},
			bson.D{{Key: "$expr", Value: bson.D{{Key: "$eq", Value: bson.A{"$a", "PING"}}}}}},
	} {
		if got := Filter(c, tc.filter); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: Filter(%v) = %v, want %v", tc.name, tc.filter, Filter(c, tc.filter), tc.want)
		}
	}
}

func TestMatchableKeepsTheOriginal(t *testing.T) {
	c, err := Parse(bson.D{{Key: "locale", Value: "en"}, {Key: "strength", Value: 2}})
	if err != nil {
		t.Fatal(err)
	}
	doc := bson.D{{Key: "a", Value: "Ping"}}
	m := c.Matchable(doc)
	if len(m) != 2 || m[0].Value != c.Key("ping") || m[1].Key != OriginalField {
		t.Fatalf("Matchable(%v) = %v", doc, m)
	}
	if o := m[1].Value.(bson.D); o[0].Value != "Ping" {
		t.Errorf("original under %q = %v, want the document", OriginalField, o)
	}
}
