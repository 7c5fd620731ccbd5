package update

import (
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/aggregate"
)

// FuzzParseApply feeds arbitrary updates (and array filters) to Parse and
// Apply: nothing may panic, and Apply never changes its input.
func FuzzParseApply(f *testing.F) {
	for _, s := range []string{
		`{"u": {"$set": {"a.b": 1}, "$inc": {"n": 2}}}`,
		`{"u": {"$push": {"arr": {"$each": [3, 1], "$sort": -1, "$slice": 2, "$position": 0}}}}`,
		`{"u": {"$set": {"arr.$[x].c": 5}}, "f": [{"x.c": {"$gt": 1}}]}`,
		`{"u": {"$rename": {"a": "z.y"}, "$unset": {"s": ""}}}`,
		`{"u": {"$pull": {"arr": {"$gte": 2}}, "$addToSet": {"tags": {"$each": ["a", "b"]}}}}`,
		`{"u": [{"$set": {"t": {"$add": ["$n", 1]}}}, {"$unset": "a"}]}`,
		`{"u": {"x": 1, "y": [1, 2]}}`,
		`{"u": {"$set": {"arr.5": 1, "arr.$[]": 0}}}`,
		`{"u": {"$mul": {"n": {"$numberLong": "9223372036854775807"}}, "$currentDate": {"d": {"$type": "timestamp"}}}}`,
	} {
		var w bson.D
		if err := bson.UnmarshalExtJSON([]byte(s), false, &w); err != nil {
			f.Fatal(err)
		}
		b, _ := bson.Marshal(w)
		f.Add(b, int8(1))
	}
	doc := bson.D{
		{Key: "_id", Value: int32(1)}, {Key: "a", Value: bson.D{{Key: "b", Value: int32(0)}}}, {Key: "n", Value: int64(7)},
		{Key: "s", Value: "x"}, {Key: "arr", Value: bson.A{int32(1), bson.D{{Key: "c", Value: int32(2)}}, bson.A{}}},
		{Key: "tags", Value: bson.A{"a"}},
	}
	f.Fuzz(func(t *testing.T, data []byte, pos int8) {
		var w bson.D
		if err := bson.Unmarshal(data, &w); err != nil || len(w) == 0 {
			return
		}
		var filters []bson.D
		for _, e := range w[1:] {
			if a, ok := e.Value.(bson.A); ok && e.Key == "f" {
				for _, x := range a {
					if d, ok := x.(bson.D); ok {
						filters = append(filters, d)
					}
				}
			}
		}
		u, err := Parse(w[0].Value, Options{ArrayFilters: filters})
		if err != nil {
			return
		}
		for _, insert := range []bool{false, true} {
			before := aggregate.CloneDoc(doc)
			_, _, _ = u.Apply(doc, ApplyContext{Insert: insert, HasPosition: pos >= 0, Position: int(pos) % 4, Now: time.Unix(0, 0)})
			if !StrictEqual(before, doc) {
				t.Fatal("Apply changed its input")
			}
		}
	})
}
