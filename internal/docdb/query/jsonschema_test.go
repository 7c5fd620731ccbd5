package query

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

func extJSON(t testing.TB, d bson.D) string {
	t.Helper()
	b, err := bson.MarshalExtJSON(d, false, false)
	if err != nil {
		t.Fatalf("marshal %v: %v", d, err)
	}
	return string(b)
}

func TestJSONSchemaMatch(t *testing.T) {
	runMatchCases(t, []matchCase{
		{"bsonType date accepts a date", `{"$jsonSchema": {"bsonType": "object", "required": ["zaman"], "properties": {"zaman": {"bsonType": "date", "description": "x"}}}}`, `{"zaman": {"$date": "2024-01-01T00:00:00Z"}}`, true},
		{"bsonType date rejects a string", `{"$jsonSchema": {"properties": {"zaman": {"bsonType": "date"}}}}`, `{"zaman": "2024-01-01"}`, false},
		{"required missing", `{"$jsonSchema": {"required": ["a"]}}`, `{"b": 1}`, false},
		{"absent optional property passes", `{"$jsonSchema": {"properties": {"a": {"bsonType": "int"}}}}`, `{"b": 1}`, true},
		{"type number accepts long", `{"$jsonSchema": {"properties": {"a": {"type": "number"}}}}`, `{"a": {"$numberLong": "5"}}`, true},
		{"type has no implicit array traversal", `{"$jsonSchema": {"properties": {"a": {"type": "string"}}}}`, `{"a": ["x"]}`, false},
		{"bsonType list", `{"$jsonSchema": {"properties": {"a": {"bsonType": ["int", "null"]}}}}`, `{"a": null}`, true},
		{"minimum applies only to numbers", `{"$jsonSchema": {"properties": {"a": {"minimum": 5}}}}`, `{"a": "x"}`, true},
		{"minimum fails", `{"$jsonSchema": {"properties": {"a": {"minimum": 5}}}}`, `{"a": 4}`, false},
		{"exclusiveMinimum", `{"$jsonSchema": {"properties": {"a": {"minimum": 5, "exclusiveMinimum": true}}}}`, `{"a": 5}`, false},
		{"maximum", `{"$jsonSchema": {"properties": {"a": {"maximum": 5}}}}`, `{"a": 5}`, true},
		{"exclusiveMaximum", `{"$jsonSchema": {"properties": {"a": {"maximum": 5, "exclusiveMaximum": true}}}}`, `{"a": 5.0}`, false},
		{"minLength counts code points", `{"$jsonSchema": {"properties": {"a": {"minLength": 2}}}}`, `{"a": "ğü"}`, true},
		{"maxLength", `{"$jsonSchema": {"properties": {"a": {"maxLength": 2}}}}`, `{"a": "abc"}`, false},
		{"pattern", `{"$jsonSchema": {"properties": {"a": {"pattern": "^a"}}}}`, `{"a": "ba"}`, false},
		{"pattern ignores non-strings", `{"$jsonSchema": {"properties": {"a": {"pattern": "^a"}}}}`, `{"a": 1}`, true},
		{"enum", `{"$jsonSchema": {"properties": {"a": {"enum": [1, "x"]}}}}`, `{"a": "x"}`, true},
		{"enum miss", `{"$jsonSchema": {"properties": {"a": {"enum": [1, "x"]}}}}`, `{"a": 2}`, false},
		{"enum ignores field order", `{"$jsonSchema": {"properties": {"a": {"enum": [{"x": 1, "y": 2}]}}}}`, `{"a": {"y": 2, "x": 1}}`, true},
		{"top-level enum compares the document", `{"$jsonSchema": {"enum": [{"a": 1}]}}`, `{"a": 1}`, true},
		{"items schema", `{"$jsonSchema": {"properties": {"a": {"items": {"bsonType": "int"}}}}}`, `{"a": [1, "x"]}`, false},
		{"items list", `{"$jsonSchema": {"properties": {"a": {"items": [{"bsonType": "int"}, {"bsonType": "string"}]}}}}`, `{"a": [1, "x", 3.5]}`, true},
		{"additionalItems false", `{"$jsonSchema": {"properties": {"a": {"items": [{"bsonType": "int"}], "additionalItems": false}}}}`, `{"a": [1, 2]}`, false},
		{"minItems", `{"$jsonSchema": {"properties": {"a": {"minItems": 2}}}}`, `{"a": [1]}`, false},
		{"maxItems", `{"$jsonSchema": {"properties": {"a": {"maxItems": 2}}}}`, `{"a": [1, 2]}`, true},
		{"uniqueItems", `{"$jsonSchema": {"properties": {"a": {"uniqueItems": true}}}}`, `{"a": [1, 1.0]}`, false},
		{"additionalProperties false", `{"$jsonSchema": {"properties": {"_id": {}, "a": {}}, "additionalProperties": false}}`, `{"_id": 1, "a": 1, "b": 1}`, false},
		{"additionalProperties schema", `{"$jsonSchema": {"properties": {"a": {}}, "additionalProperties": {"bsonType": "int"}}}`, `{"a": "x", "b": 1}`, true},
		{"patternProperties", `{"$jsonSchema": {"patternProperties": {"^n": {"bsonType": "int"}}}}`, `{"n1": "x"}`, false},
		{"nested properties", `{"$jsonSchema": {"properties": {"a": {"properties": {"b": {"minimum": 1}}}}}}`, `{"a": {"b": 0}}`, false},
		{"nested properties skip non-objects", `{"$jsonSchema": {"properties": {"a": {"properties": {"b": {"minimum": 1}}}}}}`, `{"a": 5}`, true},
		{"nested required", `{"$jsonSchema": {"properties": {"a": {"required": ["b"]}}}}`, `{"a": {}}`, false},
		{"minProperties", `{"$jsonSchema": {"minProperties": 2}}`, `{"a": 1}`, false},
		{"dependencies property list", `{"$jsonSchema": {"dependencies": {"a": ["b"]}}}`, `{"a": 1}`, false},
		{"dependencies schema", `{"$jsonSchema": {"dependencies": {"a": {"required": ["c"]}}}}`, `{"a": 1, "c": 1}`, true},
		{"allOf", `{"$jsonSchema": {"allOf": [{"required": ["a"]}, {"required": ["b"]}]}}`, `{"a": 1}`, false},
		{"anyOf", `{"$jsonSchema": {"anyOf": [{"required": ["a"]}, {"required": ["b"]}]}}`, `{"b": 1}`, true},
		{"oneOf two match", `{"$jsonSchema": {"oneOf": [{"required": ["a"]}, {"required": ["b"]}]}}`, `{"a": 1, "b": 1}`, false},
		{"not", `{"$jsonSchema": {"not": {"required": ["a"]}}}`, `{"a": 1}`, false},
		{"multipleOf on decimal digits", `{"$jsonSchema": {"properties": {"a": {"multipleOf": 0.1}}}}`, `{"a": 0.3}`, true},
		{"multipleOf fails", `{"$jsonSchema": {"properties": {"a": {"multipleOf": 2}}}}`, `{"a": 3}`, false},
		{"top-level type not object matches nothing", `{"$jsonSchema": {"type": "string"}}`, `{"a": 1}`, false},
		{"top-level scalar keywords have no effect", `{"$jsonSchema": {"minimum": 5, "maxItems": 0}}`, `{"a": 1}`, true},
		{"title and description ignored", `{"$jsonSchema": {"title": "t", "description": "d"}}`, `{}`, true},
		{"keyword contradicting a single type has no effect", `{"$jsonSchema": {"properties": {"a": {"type": "string", "minimum": 5}}}}`, `{"a": "x"}`, true},
		{"combined with other clauses", `{"$jsonSchema": {"required": ["a"]}, "a": {"$gt": 1}}`, `{"a": 2}`, true},
	})
}

func TestJSONSchemaErrors(t *testing.T) {
	cases := []errCase{
		{"not an object", `{"$jsonSchema": 1}`, 14, "$jsonSchema must be an object"},
		{"unknown keyword", `{"$jsonSchema": {"foo": 1}}`, 9, "Unknown $jsonSchema keyword: foo"},
		{"unsupported keyword", `{"$jsonSchema": {"format": "x"}}`, 9, "$jsonSchema keyword 'format' is not currently supported"},
		{"type and bsonType", `{"$jsonSchema": {"type": "object", "bsonType": "object"}}`, 9, "Cannot specify both $jsonSchema keywords 'type' and 'bsonType'"},
		{"integer type", `{"$jsonSchema": {"type": "integer"}}`, 9, "$jsonSchema type 'integer' is not currently supported."},
		{"json type alias", `{"$jsonSchema": {"properties": {"a": {"type": "date"}}}}`, 2, "Unknown type name alias: date"},
		{"bsonType alias", `{"$jsonSchema": {"properties": {"a": {"bsonType": "foo"}}}}`, 2, "Unknown type name alias: foo"},
		{"bsonType type", `{"$jsonSchema": {"bsonType": 1}}`, 14, "$jsonSchema keyword 'bsonType' must be either a string or an array of strings"},
		{"required type", `{"$jsonSchema": {"required": "a"}}`, 14, "$jsonSchema keyword 'required' must be an array, but found an element of type string"},
		{"required empty", `{"$jsonSchema": {"required": []}}`, 9, "$jsonSchema keyword 'required' cannot be an empty array"},
		{"required duplicates", `{"$jsonSchema": {"required": ["a", "a"]}}`, 9, "$jsonSchema keyword 'required' array cannot contain duplicate values"},
		{"properties type", `{"$jsonSchema": {"properties": 1}}`, 14, "$jsonSchema keyword 'properties' must be an object"},
		{"nested schema type", `{"$jsonSchema": {"properties": {"a": 1}}}`, 14, "Nested schema for $jsonSchema property 'a' must be an object"},
		{"minimum type", `{"$jsonSchema": {"properties": {"a": {"minimum": "1"}}}}`, 14, "$jsonSchema keyword 'minimum' must be a number"},
		{"exclusiveMaximum alone", `{"$jsonSchema": {"exclusiveMaximum": true}}`, 9, "$jsonSchema keyword 'maximum' must be a present if exclusiveMaximum is present"},
		{"exclusiveMinimum type", `{"$jsonSchema": {"minimum": 1, "exclusiveMinimum": 1}}`, 14, "$jsonSchema keyword 'exclusiveMinimum' must be a boolean"},
		{"minLength negative", `{"$jsonSchema": {"minLength": -1}}`, 9, "Expected a positive number in: minLength: -1"},
		{"maxItems fraction", `{"$jsonSchema": {"maxItems": 1.5}}`, 9, "Expected an integer: maxItems: 1.5"},
		{"enum empty", `{"$jsonSchema": {"enum": []}}`, 9, "$jsonSchema keyword 'enum' cannot be an empty array"},
		{"enum duplicates", `{"$jsonSchema": {"enum": [1, 1.0]}}`, 9, "$jsonSchema keyword 'enum' array cannot contain duplicate values."},
		{"description type", `{"$jsonSchema": {"description": 1}}`, 14, "$jsonSchema keyword 'description' must be of type string"},
		{"duplicate keyword", `{"$jsonSchema": {"title": "a", "title": "b"}}`, 9, "Duplicate $jsonSchema keyword: title"},
		{"allOf empty", `{"$jsonSchema": {"allOf": []}}`, 2, "$jsonSchema keyword 'allOf' must be a non-empty array"},
		{"additionalProperties type", `{"$jsonSchema": {"additionalProperties": 1}}`, 14, "$jsonSchema keyword 'additionalProperties' must be an object or a boolean"},
		{"uniqueItems type", `{"$jsonSchema": {"uniqueItems": 1}}`, 14, "$jsonSchema keyword 'uniqueItems' must be a boolean"},
		{"multipleOf positive", `{"$jsonSchema": {"multipleOf": 0}}`, 9, "$jsonSchema keyword 'multipleOf' must have a positive value"},
		{"$jsonSchema in $elemMatch", `{"a": {"$elemMatch": {"$jsonSchema": {}}}}`, 2, "$jsonSchema can only be applied to the top-level document"},
	}
	for _, c := range cases {
		t.Run(c.rule, func(t *testing.T) {
			_, err := ParseFilter(doc(t, c.filter))
			assertMongoErr(t, err, c.code, c.msg)
		})
	}
}

func TestValidationDetails(t *testing.T) {
	cases := []struct {
		rule             string
		validator, input string
		want             string
	}{
		{
			"seed: bsonType date and required (MongoDB 5.1+ shape with description)",
			`{"$jsonSchema": {"bsonType": "object", "required": ["zaman", "kim"], "properties": {"zaman": {"bsonType": "date", "description": "Geçerli bir tarih olmalı."}}}}`,
			`{"zaman": "2024-01-01"}`,
			`{"operatorName": "$jsonSchema", "schemaRulesNotSatisfied": [{"operatorName": "properties", "propertiesNotSatisfied": [{"propertyName": "zaman", "description": "Geçerli bir tarih olmalı.", "details": [{"operatorName": "bsonType", "specifiedAs": {"bsonType": "date"}, "reason": "type did not match", "consideredValue": "2024-01-01", "consideredType": "string"}]}]}, {"operatorName": "required", "specifiedAs": {"required": ["zaman", "kim"]}, "missingProperties": ["kim"]}]}`,
		},
		{
			"minimum (doc_validation_error_json_schema_test BasicProperties)",
			`{"$jsonSchema": {"properties": {"a": {"minimum": 1}}}}`, `{"a": 0}`,
			`{"operatorName": "$jsonSchema", "schemaRulesNotSatisfied": [{"operatorName": "properties", "propertiesNotSatisfied": [{"propertyName": "a", "details": [{"operatorName": "minimum", "specifiedAs": {"minimum": 1}, "reason": "comparison failed", "consideredValue": 0}]}]}]}`,
		},
		{
			"exclusive minimum shows both keywords",
			`{"$jsonSchema": {"properties": {"a": {"minimum": 1, "exclusiveMinimum": true}}}}`, `{"a": 1}`,
			`{"operatorName": "$jsonSchema", "schemaRulesNotSatisfied": [{"operatorName": "properties", "propertiesNotSatisfied": [{"propertyName": "a", "details": [{"operatorName": "minimum", "specifiedAs": {"minimum": 1, "exclusiveMinimum": true}, "reason": "comparison failed", "consideredValue": 1}]}]}]}`,
		},
		{
			"maximum reported before minimum",
			`{"$jsonSchema": {"properties": {"a": {"properties": {"b": {"minimum": 10, "maximum": -10}}}}}}`, `{"a": {"b": 5}}`,
			`{"operatorName": "$jsonSchema", "schemaRulesNotSatisfied": [{"operatorName": "properties", "propertiesNotSatisfied": [{"propertyName": "a", "details": [{"operatorName": "properties", "propertiesNotSatisfied": [{"propertyName": "b", "details": [{"operatorName": "maximum", "specifiedAs": {"maximum": -10}, "reason": "comparison failed", "consideredValue": 5}, {"operatorName": "minimum", "specifiedAs": {"minimum": 10}, "reason": "comparison failed", "consideredValue": 5}]}]}]}]}]}`,
		},
		{
			"type mismatch only, keyword of another type ignored",
			`{"$jsonSchema": {"properties": {"a": {"type": "string", "minimum": 5}}}}`, `{"a": 6}`,
			`{"operatorName": "$jsonSchema", "schemaRulesNotSatisfied": [{"operatorName": "properties", "propertiesNotSatisfied": [{"propertyName": "a", "details": [{"operatorName": "type", "specifiedAs": {"type": "string"}, "reason": "type did not match", "consideredValue": 6, "consideredType": "int"}]}]}]}`,
		},
		{
			"items, additionalProperties and required (recorded MongoDB 8.0 shape)",
			`{"$jsonSchema": {"required": ["name", "age"], "additionalProperties": false, "properties": {"_id": {}, "name": {"minLength": 2}, "age": {"bsonType": "int"}, "tags": {"items": {"bsonType": "string"}}}}}`,
			`{"_id": "x", "age": "old", "tags": ["a", 2], "extra": 1}`,
			`{"operatorName": "$jsonSchema", "schemaRulesNotSatisfied": [{"operatorName": "properties", "propertiesNotSatisfied": [{"propertyName": "age", "details": [{"operatorName": "bsonType", "specifiedAs": {"bsonType": "int"}, "reason": "type did not match", "consideredValue": "old", "consideredType": "string"}]}, {"propertyName": "tags", "details": [{"operatorName": "items", "reason": "At least one item did not match the sub-schema", "itemIndex": 1, "details": [{"operatorName": "bsonType", "specifiedAs": {"bsonType": "string"}, "reason": "type did not match", "consideredValue": 2, "consideredType": "int"}]}]}]}, {"operatorName": "additionalProperties", "specifiedAs": {"additionalProperties": false}, "additionalProperties": ["extra"]}, {"operatorName": "required", "specifiedAs": {"required": ["name", "age"]}, "missingProperties": ["name"]}]}`,
		},
		{
			"enum with required missing reports only required",
			`{"$jsonSchema": {"required": ["a"], "properties": {"a": {"enum": [1, 2, 3]}}}}`, `{}`,
			`{"operatorName": "$jsonSchema", "schemaRulesNotSatisfied": [{"operatorName": "required", "specifiedAs": {"required": ["a"]}, "missingProperties": ["a"]}]}`,
		},
		{
			"not",
			`{"$jsonSchema": {"not": {"properties": {"a": {"minimum": 1}}}}}`, `{"a": 2}`,
			`{"operatorName": "$jsonSchema", "schemaRulesNotSatisfied": [{"operatorName": "not", "reason": "child expression matched"}]}`,
		},
		{
			"allOf",
			`{"$jsonSchema": {"allOf": [{"properties": {"a": {"minimum": 1}}}, {"properties": {"b": {"minimum": 2}}}]}}`, `{"a": 1, "b": 0}`,
			`{"operatorName": "$jsonSchema", "schemaRulesNotSatisfied": [{"operatorName": "allOf", "schemasNotSatisfied": [{"index": 1, "details": [{"operatorName": "properties", "propertiesNotSatisfied": [{"propertyName": "b", "details": [{"operatorName": "minimum", "specifiedAs": {"minimum": 2}, "reason": "comparison failed", "consideredValue": 0}]}]}]}]}]}`,
		},
		{
			"top-level type other than object",
			`{"$jsonSchema": {"type": "number"}}`, `{"a": 1}`,
			`{"operatorName": "$jsonSchema", "specifiedAs": {"$jsonSchema": {"type": "number"}}, "reason": "expression always evaluates to false"}`,
		},
		{
			"query operators (recorded MongoDB 8.0 shape)",
			`{"a": {"$gt": 5}, "b": {"$exists": true}}`, `{"a": 1}`,
			`{"operatorName": "$and", "clausesNotSatisfied": [{"index": 0, "details": {"operatorName": "$gt", "specifiedAs": {"a": {"$gt": 5}}, "reason": "comparison failed", "consideredValue": 1}}, {"index": 1, "details": {"operatorName": "$exists", "specifiedAs": {"b": {"$exists": true}}, "reason": "path does not exist"}}]}`,
		},
		{
			"implicit equality and missing field",
			`{"a": 2}`, `{"b": 1}`,
			`{"operatorName": "$eq", "specifiedAs": {"a": 2}, "reason": "field was missing"}`,
		},
		{
			"$nor reports satisfied clauses",
			`{"$nor": [{"a": 1}, {"b": 1}]}`, `{"a": 1}`,
			`{"operatorName": "$nor", "clausesSatisfied": [{"index": 0, "details": {"operatorName": "$eq", "specifiedAs": {"a": 1}, "reason": "comparison succeeded", "consideredValue": 1}}]}`,
		},
	}
	for _, c := range cases {
		t.Run(c.rule, func(t *testing.T) {
			f, err := ParseFilter(doc(t, c.validator))
			if err != nil {
				t.Fatal(err)
			}
			in := doc(t, c.input)
			if f.Match(in) {
				t.Fatalf("validator matched %s", c.input)
			}
			got := extJSON(t, f.ValidationDetails(in))
			want := extJSON(t, doc(t, c.want))
			if got != want {
				t.Errorf("details\n got %s\nwant %s", got, want)
			}
		})
	}
}
