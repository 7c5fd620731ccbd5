package query

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// doc parses relaxed extended JSON ({"a": 1} gives an int32, 1.5 a double,
// {"$date": ...} a date) into a document, as the driver would decode it.
func doc(t testing.TB, js string) bson.D {
	t.Helper()
	var d bson.D
	if err := bson.UnmarshalExtJSON([]byte(js), false, &d); err != nil {
		t.Fatalf("bad test document %s: %v", js, err)
	}
	return d
}

// val parses one relaxed extended JSON value.
func val(t testing.TB, js string) any {
	t.Helper()
	d := doc(t, `{"v": `+js+`}`)
	return d[0].Value
}
