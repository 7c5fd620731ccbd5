package query

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// FuzzFilter parses arbitrary BSON as a filter and matches it against
// arbitrary BSON documents: nothing may panic, and a filter that parses
// must match deterministically and explain its failures.
func FuzzFilter(f *testing.F) {
	seeds := [][2]string{
		{`{"a": 1}`, `{"a": [1, 2]}`},
		{`{"a.b": {"$gt": 1, "$lt": 9}}`, `{"a": [{"b": 5}, {"b": [0, 10]}]}`},
		{`{"$or": [{"a": null}, {"b": {"$exists": false}}]}`, `{"b": 1}`},
		{`{"a": {"$elemMatch": {"x": {"$in": [1, {"$regularExpression": {"pattern": "^y", "options": "i"}}]}}}}`, `{"a": [{"x": "Yz"}]}`},
		{`{"a": {"$all": [{"$elemMatch": {"$gt": 1}}]}, "b": {"$size": 2}}`, `{"a": [0, 3], "b": [[1], 2]}`},
		{`{"a": {"$not": {"$mod": [3, 1]}}, "c": {"$type": ["number", "string"]}}`, `{"a": 4.5, "c": "x"}`},
		{`{"$jsonSchema": {"required": ["a"], "properties": {"a": {"bsonType": "array", "items": {"minimum": 0}, "uniqueItems": true}}}}`, `{"a": [1, 1]}`},
		{`{"a.0.b": {"$bitsAnySet": [1, 3]}}`, `{"a": [{"b": 10}]}`},
		{`{"$nor": [{"a": {"$regex": "x", "$options": "smx"}}]}`, `{"a": "X"}`},
	}
	for _, s := range seeds {
		fb, err := bson.Marshal(doc(f, s[0]))
		if err != nil {
			f.Fatal(err)
		}
		db, err := bson.Marshal(doc(f, s[1]))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(fb, db)
	}
	f.Fuzz(func(t *testing.T, filterBytes, docBytes []byte) {
		var filter, d bson.D
		if bson.Unmarshal(filterBytes, &filter) != nil || bson.Unmarshal(docBytes, &d) != nil {
			return
		}
		flt, err := ParseFilter(filter)
		if err != nil {
			return
		}
		first := flt.Match(d)
		r, err := flt.Eval(d)
		if err != nil {
			t.Fatalf("Eval error without $expr: %v", err)
		}
		if r.Matched != first || flt.Match(d) != first {
			t.Fatalf("non-deterministic match for %v on %v", filter, d)
		}
		if !first {
			_ = flt.ValidationDetails(d)
		}
		for _, p := range flt.Predicates() {
			_ = p.Intervals()
		}
		if pr, err := ParseProjection(filter); err == nil {
			_, _ = pr.Apply(d, r)
		}
		if s, err := ParseSort(filter); err == nil {
			_ = s.Compare(d, filter)
		}
	})
}
