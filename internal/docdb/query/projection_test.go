package query

import (
	"testing"
)

func TestProjectionApply(t *testing.T) {
	cases := []struct {
		rule       string
		projection string
		filter     string // query that produced the match (for positional)
		doc        string
		want       string
	}{
		{"empty projection returns the document", `{}`, `{}`, `{"_id": 1, "a": 1}`, `{"_id": 1, "a": 1}`},
		{"inclusion keeps _id and listed fields in document order", `{"b": 1, "a": 1}`, `{}`, `{"_id": 1, "a": 1, "b": 2, "c": 3}`, `{"_id": 1, "a": 1, "b": 2}`},
		{"inclusion with _id excluded", `{"a": 1, "_id": 0}`, `{}`, `{"_id": 1, "a": 1, "b": 2}`, `{"a": 1}`},
		{"exclusion drops fields", `{"b": 0}`, `{}`, `{"_id": 1, "a": 1, "b": 2}`, `{"_id": 1, "a": 1}`},
		{"exclusion of _id only", `{"_id": 0}`, `{}`, `{"_id": 1, "a": 1}`, `{"a": 1}`},
		{"_id: 1 alone is inclusion", `{"_id": 1}`, `{}`, `{"_id": 1, "a": 1}`, `{"_id": 1}`},
		{"missing included field is absent", `{"z": 1}`, `{}`, `{"_id": 1, "a": 1}`, `{"_id": 1}`},
		{"dotted inclusion", `{"a.b": 1}`, `{}`, `{"_id": 1, "a": {"b": 1, "c": 2}, "d": 1}`, `{"_id": 1, "a": {"b": 1}}`},
		{"nested sub-projection equals dotted", `{"a": {"b": 1}}`, `{}`, `{"_id": 1, "a": {"b": 1, "c": 2}}`, `{"_id": 1, "a": {"b": 1}}`},
		{"dotted inclusion through arrays drops scalars", `{"a.b": 1, "_id": 0}`, `{}`, `{"a": [{"b": 1, "c": 2}, 5, {"c": 3}, [{"b": 4}]]}`, `{"a": [{"b": 1}, {}, [{"b": 4}]]}`},
		{"dotted inclusion on scalar drops the field", `{"a.b": 1, "_id": 0}`, `{}`, `{"a": 2}`, `{}`},
		{"dotted exclusion through arrays keeps scalars", `{"a.b": 0}`, `{}`, `{"_id": 1, "a": [{"b": 1, "c": 2}, 5]}`, `{"_id": 1, "a": [{"c": 2}, 5]}`},
		{"$slice n alone keeps other fields", `{"a": {"$slice": 2}}`, `{}`, `{"_id": 1, "a": [1, 2, 3], "b": 1}`, `{"_id": 1, "a": [1, 2], "b": 1}`},
		{"$slice negative", `{"a": {"$slice": -2}}`, `{}`, `{"_id": 1, "a": [1, 2, 3]}`, `{"_id": 1, "a": [2, 3]}`},
		{"$slice skip limit", `{"a": {"$slice": [1, 1]}}`, `{}`, `{"_id": 1, "a": [1, 2, 3]}`, `{"_id": 1, "a": [2]}`},
		{"$slice negative skip", `{"a": {"$slice": [-2, 5]}}`, `{}`, `{"_id": 1, "a": [1, 2, 3]}`, `{"_id": 1, "a": [2, 3]}`},
		{"$slice beyond end", `{"a": {"$slice": [5, 1]}}`, `{}`, `{"_id": 1, "a": [1, 2, 3]}`, `{"_id": 1, "a": []}`},
		{"$slice non-array untouched", `{"a": {"$slice": 1}}`, `{}`, `{"_id": 1, "a": 5}`, `{"_id": 1, "a": 5}`},
		{"$slice in inclusion", `{"b": 1, "a": {"$slice": 1}}`, `{}`, `{"_id": 1, "a": [1, 2], "b": 1, "c": 1}`, `{"_id": 1, "a": [1], "b": 1}`},
		{"$slice with _id: 1 is inclusion", `{"_id": 1, "a": {"$slice": 1}}`, `{}`, `{"_id": 1, "a": [1, 2], "c": 1}`, `{"_id": 1, "a": [1]}`},
		{"$elemMatch returns first matching element only", `{"a": {"$elemMatch": {"x": {"$gt": 1}}}}`, `{}`, `{"_id": 1, "a": [{"x": 1}, {"x": 2}, {"x": 3}], "b": 1}`, `{"_id": 1, "a": [{"x": 2}]}`},
		{"$elemMatch no match omits field", `{"a": {"$elemMatch": {"x": 9}}}`, `{}`, `{"_id": 1, "a": [{"x": 1}]}`, `{"_id": 1}`},
		{"$elemMatch field appended after inclusions", `{"a": {"$elemMatch": {"$eq": 2}}, "b": 1}`, `{}`, `{"_id": 1, "a": [1, 2], "b": 1}`, `{"_id": 1, "b": 1, "a": [2]}`},
		{"positional returns the matched element", `{"a.$": 1}`, `{"a": {"$gt": 1}}`, `{"_id": 1, "a": [1, 5, 9], "b": 1}`, `{"_id": 1, "a": [5]}`},
		{"positional through documents", `{"a.b.$": 1}`, `{"a.b": 3}`, `{"_id": 1, "a": {"b": [1, 3], "c": 1}}`, `{"_id": 1, "a": {"b": [3]}}`},
		{"positional on array of documents", `{"a.$": 1}`, `{"a.x": 2}`, `{"_id": 1, "a": [{"x": 1}, {"x": 2}]}`, `{"_id": 1, "a": [{"x": 2}]}`},
		{"literal computed field", `{"a": 1, "k": "v"}`, `{}`, `{"_id": 1, "a": 1, "b": 2}`, `{"_id": 1, "a": 1, "k": "v"}`},
	}
	for _, c := range cases {
		t.Run(c.rule, func(t *testing.T) {
			pr, err := ParseProjection(doc(t, c.projection))
			if err != nil {
				t.Fatalf("ParseProjection(%s): %v", c.projection, err)
			}
			f, err := ParseFilter(doc(t, c.filter))
			if err != nil {
				t.Fatal(err)
			}
			in := doc(t, c.doc)
			m, err := f.Eval(in)
			if err != nil || !m.Matched {
				t.Fatalf("filter %s does not match %s", c.filter, c.doc)
			}
			got, err := pr.Apply(in, m)
			if err != nil {
				t.Fatalf("Apply: %v", err)
			}
			if g, w := extJSON(t, got), extJSON(t, doc(t, c.want)); g != w {
				t.Errorf("got %s, want %s", g, w)
			}
		})
	}
}

func TestProjectionErrors(t *testing.T) {
	cases := []errCase{
		{"exclusion in inclusion", `{"a": 1, "b": 0}`, 31254, "Cannot do exclusion on field b in inclusion projection"},
		{"inclusion in exclusion", `{"a": 0, "b": 1}`, 31253, "Cannot do inclusion on field b in exclusion projection"},
		{"path collision", `{"a.b": 1, "a": 1}`, 31250, "Path collision at a"},
		{"path collision with remaining portion", `{"a": 1, "a.b": 1}`, 31249, "Path collision at a.b remaining portion b"},
		{"empty sub-projection", `{"a": {}}`, 51270, "Invalid empty sub-projection: a"},
		{"dollar field", `{"$a": 1}`, 16410, "FieldPath field names may not start with '$'. Consider using $getField or $setField."},
		{"empty field", `{"a..b": 1}`, 15998, "FieldPath field names may not be empty strings."},
		{"slice limit", `{"a": {"$slice": [1, 0]}}`, 31259, "$slice limit must be positive, got 0"},
		{"slice form", `{"a": {"$slice": [1]}}`, 31272, "$slice array argument should be of form [skip, limit]"},
		{"slice type", `{"a": {"$slice": "x"}}`, 31273, "$slice only supports numbers and [skip, limit] arrays"},
		{"slice skip type", `{"a": {"$slice": ["x", 1]}}`, 31257, "$slice expects the skip argument to be a number, got string"},
		{"elemMatch nested", `{"a.b": {"$elemMatch": {"x": 1}}}`, 31275, "Cannot use $elemMatch projection on a nested field."},
		{"elemMatch object", `{"a": {"$elemMatch": 1}}`, 31274, "elemMatch: Invalid argument, object required, but got int"},
		{"two positionals", `{"a.$": 1, "b.$": 1}`, 31276, "Cannot specify more than one positional projection per query."},
		{"positional and elemMatch", `{"b": {"$elemMatch": {"x": 1}}, "a.$": 1}`, 31256, "Cannot specify positional operator and $elemMatch."},
		{"positional exclusion", `{"a.$": 0}`, 31395, "positional projection cannot be used with exclusion"},
		{"positional in the middle", `{"a.$.b": 1}`, 31394, "As of 4.4, it's illegal to specify positional operator in the middle of a path.Positional projection may only be used at the end, for example: a.b.$. If the query previously used a form like a.b.$.d, remove the parts following the '$' and the results will be equivalent."},
		{"literal in exclusion", `{"a": 0, "b": "x"}`, 31310, `Cannot use an expression b: "x" in an exclusion projection`},
		{"unknown expression", `{"a": {"$foo": 1}}`, 31325, "Unknown expression $foo"},
		{"expressions need an evaluator", `{"a": "$b"}`, 238, "projection expressions are not supported in this context"},
	}
	for _, c := range cases {
		t.Run(c.rule, func(t *testing.T) {
			_, err := ParseProjection(doc(t, c.filter))
			assertMongoErr(t, err, c.code, c.msg)
		})
	}
}

func TestProjectionPositionalNeedsMatch(t *testing.T) {
	pr, err := ParseProjection(doc(t, `{"a.$": 1}`))
	if err != nil {
		t.Fatal(err)
	}
	_, err = pr.Apply(doc(t, `{"a": [1, 2]}`), MatchResult{Matched: true, ArrayIndex: -1})
	assertMongoErr(t, err, 51246, "positional operator '.$' couldn't find a matching element in the array")
}
