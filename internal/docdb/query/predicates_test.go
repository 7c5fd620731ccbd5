package query

import (
	"fmt"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

func TestPredicates(t *testing.T) {
	cases := []struct {
		filter string
		want   string
	}{
		{`{"a": 1, "b": {"$gt": 2, "$lte": 9}}`, `[a $eq 1 [] b $gt 2 [] b $lte 9 []]`},
		{`{"$and": [{"a": {"$in": [1, 2]}}, {"c": {"$regex": "^x"}}]}`, `[a $in <nil> [1 2] c $regex {"pattern": "^x", "options": ""} []]`},
		{`{"$or": [{"a": 1}], "b": {"$ne": 1}, "c": {"$not": {"$gt": 1}}}`, `[]`},
		{`{"a": {"$all": [1, 2]}}`, `[a $eq 1 [] a $eq 2 []]`},
	}
	for _, c := range cases {
		f, err := ParseFilter(doc(t, c.filter))
		if err != nil {
			t.Fatal(err)
		}
		var parts []string
		for _, p := range f.Predicates() {
			parts = append(parts, fmt.Sprint(p.Path, " ", p.Op, " ", p.Value, " ", p.Values))
		}
		if got := fmt.Sprint(parts); got != c.want {
			t.Errorf("Predicates(%s) = %s, want %s", c.filter, got, c.want)
		}
	}
}

func TestIntervalsAreNecessary(t *testing.T) {
	// Rule: an index scan within a predicate's intervals must find every
	// matching document: each value that satisfies the predicate lies in
	// some interval (the filter re-check removes the rest).
	values := []string{`1`, `2.5`, `-3`, `{"$numberDecimal": "7"}`, `{"$numberDouble": "Infinity"}`, `{"$numberDouble": "-Infinity"}`,
		`"a"`, `"ab"`, `"b"`, `""`, `"x1"`, `{"a": 1}`, `{}`, `[]`, `[1, 2]`, `[0]`, `null`, `true`, `false`,
		`{"$date": "2020-01-01T00:00:00Z"}`, `{"$oid": "000000000000000000000001"}`, `{"$binary": {"base64": "AQ==", "subType": "00"}}`,
		`{"$timestamp": {"t": 1, "i": 1}}`, `{"$minKey": 1}`, `{"$maxKey": 1}`, `{"$regularExpression": {"pattern": "^x", "options": ""}}`}
	filters := []string{`{"v": 1}`, `{"v": {"$gt": 1}}`, `{"v": {"$gte": 2.5}}`, `{"v": {"$lt": "b"}}`, `{"v": {"$lte": null}}`,
		`{"v": {"$gt": {"$minKey": 1}}}`, `{"v": {"$lt": {"$maxKey": 1}}}`, `{"v": {"$in": [1, "a", null]}}`, `{"v": {"$regex": "^x"}}`,
		`{"v": {"$regex": "b"}}`, `{"v": [1, 2]}`, `{"v": []}`, `{"v": {"$gt": {"$date": "2019-01-01T00:00:00Z"}}}`, `{"v": {"$gte": {}}}`,
		`{"v": {"$lt": [5]}}`, `{"v": {"$gt": false}}`, `{"v": {"$gte": [1]}}`, `{"v": {"$lte": []}}`, `{"v": {"$gt": [0, 5]}}`}
	for _, fs := range filters {
		f, err := ParseFilter(doc(t, fs))
		if err != nil {
			t.Fatal(err)
		}
		preds := f.Predicates()
		if len(preds) != 1 {
			t.Fatalf("%s: %d predicates", fs, len(preds))
		}
		ivs := preds[0].Intervals()
		for _, vs := range values {
			d := doc(t, `{"v": `+vs+`}`)
			if !f.Match(d) {
				continue
			}
			// The index holds the value itself or, for an array, each
			// element (undefined for an empty array), as MongoDB's
			// multikey indexes do.
			keys := []any{d[0].Value}
			if a, ok := AsArray(d[0].Value); ok {
				keys = append([]any{}, a...)
				if len(a) == 0 {
					keys = []any{bson.Undefined{}}
				}
			}
			found := false
			for _, k := range keys {
				for _, iv := range ivs {
					lo, hi := Compare(k, iv.Low), Compare(k, iv.High)
					if (lo > 0 || (lo == 0 && iv.LowInclusive)) && (hi < 0 || (hi == 0 && iv.HighInclusive)) {
						found = true
					}
				}
			}
			if !found {
				t.Errorf("filter %s matches %s but its intervals %v miss it", fs, vs, ivs)
			}
		}
	}
}
