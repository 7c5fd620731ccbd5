package query

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"pgregory.net/rapid"
)

// genDoc draws a small document over the fields a and b.
func genDoc() *rapid.Generator[bson.D] {
	return rapid.Custom(func(t *rapid.T) bson.D {
		d := bson.D{}
		for _, k := range []string{"a", "b"} {
			if rapid.Bool().Draw(t, "has_"+k) {
				d = append(d, bson.E{Key: k, Value: genValue(2).Draw(t, k)})
			}
		}
		return d
	})
}

func TestNegationProperties(t *testing.T) {
	// Rule: $ne, $nin, {$exists: false} and $not are exact complements of
	// $eq, $in, {$exists: true} and the negated expression on every
	// document (MongoDB defines them as NOT nodes).
	rapid.Check(t, func(t *rapid.T) {
		d := genDoc().Draw(t, "doc")
		v := genValue(1).Draw(t, "v")
		w := genValue(1).Draw(t, "w")
		if _, ok := v.(bson.Regex); ok {
			return
		}
		if _, ok := v.(bson.Undefined); ok {
			return
		}
		if _, ok := w.(bson.Undefined); ok {
			return
		}
		pairs := [][2]bson.D{
			{{{Key: "a", Value: bson.D{{Key: "$eq", Value: v}}}}, {{Key: "a", Value: bson.D{{Key: "$ne", Value: v}}}}},
			{{{Key: "a", Value: bson.D{{Key: "$in", Value: bson.A{v, w}}}}}, {{Key: "a", Value: bson.D{{Key: "$nin", Value: bson.A{v, w}}}}}},
			{{{Key: "a", Value: bson.D{{Key: "$exists", Value: true}}}}, {{Key: "a", Value: bson.D{{Key: "$exists", Value: false}}}}},
			{{{Key: "a", Value: bson.D{{Key: "$gt", Value: v}}}}, {{Key: "a", Value: bson.D{{Key: "$not", Value: bson.D{{Key: "$gt", Value: v}}}}}}},
			{{{Key: "a", Value: v}, {Key: "b", Value: w}}, {{Key: "$nor", Value: bson.A{bson.D{{Key: "a", Value: v}, {Key: "b", Value: w}}}}}},
		}
		for _, p := range pairs {
			pos, err1 := ParseFilter(p[0])
			neg, err2 := ParseFilter(p[1])
			if err1 != nil || err2 != nil {
				if (err1 == nil) != (err2 == nil) {
					t.Fatalf("only one of %v / %v parses: %v %v", p[0], p[1], err1, err2)
				}
				continue
			}
			if pos.Match(d) == neg.Match(d) {
				t.Fatalf("%v and %v agree (%v) on %v", p[0], p[1], pos.Match(d), d)
			}
		}
	})
}

func TestEqualityProperties(t *testing.T) {
	// Rule: {a: v} matches a document whose field a is v, and {a: {$in:
	// [v]}} matches exactly when {a: v} does.
	rapid.Check(t, func(t *rapid.T) {
		v := genValue(2).Draw(t, "v")
		switch v.(type) {
		case bson.Regex, bson.Undefined:
			return
		}
		if d, ok := AsDocument(v); ok && len(d) > 0 && len(d[0].Key) > 0 && d[0].Key[0] == '$' {
			return
		}
		d := genDoc().Draw(t, "doc")
		eq, err := ParseFilter(bson.D{{Key: "a", Value: v}})
		if err != nil {
			t.Fatalf("parse {a: %v}: %v", v, err)
		}
		if !eq.Match(bson.D{{Key: "a", Value: v}}) {
			t.Fatalf("{a: %v} does not match itself", v)
		}
		in, err := ParseFilter(bson.D{{Key: "a", Value: bson.D{{Key: "$in", Value: bson.A{v}}}}})
		if err != nil {
			t.Fatal(err)
		}
		if eq.Match(d) != in.Match(d) {
			t.Fatalf("{a: %v} and $in disagree on %v", v, d)
		}
	})
}

func TestSortIsTotalPreorder(t *testing.T) {
	// Rule: the document comparator is a total preorder, so sorting is
	// well defined for any mix of types and arrays.
	rapid.Check(t, func(t *rapid.T) {
		s, err := ParseSort(bson.D{{Key: "a", Value: rapid.SampledFrom([]int32{1, -1}).Draw(t, "dir")}, {Key: "b", Value: int32(1)}})
		if err != nil {
			t.Fatal(err)
		}
		x, y, z := genDoc().Draw(t, "x"), genDoc().Draw(t, "y"), genDoc().Draw(t, "z")
		if s.Compare(x, y) != -s.Compare(y, x) {
			t.Fatalf("not antisymmetric on %v, %v", x, y)
		}
		if s.Compare(x, y) <= 0 && s.Compare(y, z) <= 0 && s.Compare(x, z) > 0 {
			t.Fatalf("not transitive on %v, %v, %v", x, y, z)
		}
	})
}
