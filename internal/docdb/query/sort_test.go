package query

import (
	"fmt"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

func TestSortOrder(t *testing.T) {
	cases := []struct {
		rule string
		spec string
		docs []string
		want string // _ids in order
	}{
		{"ascending numbers across types", `{"a": 1}`, []string{`{"_id": 1, "a": 3}`, `{"_id": 2, "a": 1.5}`, `{"_id": 3, "a": {"$numberLong": "2"}}`}, "[2 3 1]"},
		{"descending", `{"a": -1}`, []string{`{"_id": 1, "a": 3}`, `{"_id": 2, "a": 1}`, `{"_id": 3, "a": 2}`}, "[1 3 2]"},
		{"missing sorts as null, before numbers", `{"a": 1}`, []string{`{"_id": 1, "a": 1}`, `{"_id": 2}`, `{"_id": 3, "a": null}`}, "[2 3 1]"},
		{"types in canonical order", `{"a": 1}`, []string{`{"_id": 1, "a": "s"}`, `{"_id": 2, "a": 5}`, `{"_id": 3, "a": {"x": 1}}`, `{"_id": 4, "a": true}`}, "[2 1 3 4]"},
		{"array ascending uses its smallest element", `{"a": 1}`, []string{`{"_id": 1, "a": [5, 0]}`, `{"_id": 2, "a": 1}`, `{"_id": 3, "a": [2, 3]}`}, "[1 2 3]"},
		{"array descending uses its largest element", `{"a": -1}`, []string{`{"_id": 1, "a": [5, 0]}`, `{"_id": 2, "a": 6}`, `{"_id": 3, "a": [2, 3]}`}, "[2 1 3]"},
		{"empty array sorts before null", `{"a": 1}`, []string{`{"_id": 1, "a": null}`, `{"_id": 2, "a": []}`, `{"_id": 3, "a": 0}`}, "[2 1 3]"},
		{"several keys", `{"a": 1, "b": -1}`, []string{`{"_id": 1, "a": 1, "b": 1}`, `{"_id": 2, "a": 1, "b": 2}`, `{"_id": 3, "a": 0, "b": 0}`}, "[3 2 1]"},
		{"dotted path through array of documents", `{"a.b": 1}`, []string{`{"_id": 1, "a": [{"b": 4}, {"b": 2}]}`, `{"_id": 2, "a": [{"b": 3}]}`}, "[1 2]"},
		{"ties keep input order", `{"a": 1}`, []string{`{"_id": 1, "a": 1}`, `{"_id": 2, "a": 1}`, `{"_id": 3, "a": 0}`}, "[3 1 2]"},
	}
	for _, c := range cases {
		t.Run(c.rule, func(t *testing.T) {
			s, err := ParseSort(doc(t, c.spec))
			if err != nil {
				t.Fatal(err)
			}
			var docs []bson.D
			for _, d := range c.docs {
				docs = append(docs, doc(t, d))
			}
			s.SortDocs(docs)
			var ids []any
			for _, d := range docs {
				id, _ := Field(d, "_id")
				ids = append(ids, id)
			}
			if got := fmt.Sprint(ids); got != c.want {
				t.Errorf("order %s, want %s", got, c.want)
			}
		})
	}
}

func TestParseSortErrors(t *testing.T) {
	cases := []errCase{
		{"direction 2", `{"a": 2}`, 15975, "$sort key ordering must be 1 (for ascending) or -1 (for descending)"},
		{"direction 0", `{"a": 0}`, 15975, "$sort key ordering must be 1 (for ascending) or -1 (for descending)"},
		{"string direction", `{"a": "asc"}`, 15974, `Illegal key in $sort specification: a: "asc"`},
		{"empty key", `{"": 1}`, 40352, "FieldPath cannot be constructed with empty string"},
		{"dollar key", `{"$a": 1}`, 16410, "FieldPath field names may not start with '$'. Consider using $getField or $setField."},
		{"meta refused", `{"a": {"$meta": "textScore"}}`, 238, "$meta sort is not supported"},
		{"other object", `{"a": {"x": 1}}`, 17312, "$meta is the only expression supported by $sort right now"},
	}
	for _, c := range cases {
		t.Run(c.rule, func(t *testing.T) {
			_, err := ParseSort(doc(t, c.filter))
			assertMongoErr(t, err, c.code, c.msg)
		})
	}
}
