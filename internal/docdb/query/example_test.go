package query_test

import (
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/query"
)

func ExampleParseFilter() {
	f, err := query.ParseFilter(bson.D{{Key: "tags", Value: bson.D{{Key: "$gt", Value: 5}}}})
	if err != nil {
		panic(err)
	}
	doc := bson.D{{Key: "tags", Value: bson.A{int32(1), "x", 7.5}}}
	r, _ := f.Eval(doc)
	fmt.Println(r.Matched, r.ArrayIndex)
	fmt.Println(f.Match(bson.D{{Key: "tags", Value: "zzz"}}))
	// Output:
	// true 2
	// false
}

func ExampleFilter_ValidationDetails() {
	f, _ := query.ParseFilter(bson.D{{Key: "$jsonSchema", Value: bson.D{
		{Key: "required", Value: bson.A{"zaman"}},
		{Key: "properties", Value: bson.D{{Key: "zaman", Value: bson.D{{Key: "bsonType", Value: "date"}}}}},
	}}})
	doc := bson.D{{Key: "zaman", Value: "dün"}}
	b, _ := bson.MarshalExtJSON(f.ValidationDetails(doc), false, false)
	fmt.Println(string(b))
	// Output:
	// {"operatorName":"$jsonSchema","schemaRulesNotSatisfied":[{"operatorName":"properties","propertiesNotSatisfied":[{"propertyName":"zaman","details":[{"operatorName":"bsonType","specifiedAs":{"bsonType":"date"},"reason":"type did not match","consideredValue":"dün","consideredType":"string"}]}]}]}
}

func ExampleCompare() {
	fmt.Println(query.Compare(int32(1), 1.0), query.Compare(nil, 0), query.Compare("a", bson.D{}))
	// Output: 0 -1 -1
}
