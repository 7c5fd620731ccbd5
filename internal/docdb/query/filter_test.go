package query

import (
	"errors"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
)

type matchCase struct {
	rule   string
	filter string
	doc    string
	want   bool
}

func runMatchCases(t *testing.T, cases []matchCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.rule, func(t *testing.T) {
			f, err := ParseFilter(doc(t, c.filter))
			if err != nil {
				t.Fatalf("ParseFilter(%s): %v", c.filter, err)
			}
			if got := f.Match(doc(t, c.doc)); got != c.want {
				t.Errorf("filter %s on %s = %v, want %v", c.filter, c.doc, got, c.want)
			}
		})
	}
}

func TestMatchEquality(t *testing.T) {
	runMatchCases(t, []matchCase{
		{"equality on a scalar", `{"a": 1}`, `{"a": 1}`, true},
		{"numbers compare by value across types", `{"a": 1}`, `{"a": {"$numberLong": "1"}}`, true},
		{"int equals double", `{"a": 1}`, `{"a": 1.0}`, true},
		{"decimal equals int", `{"a": {"$numberDecimal": "1.0"}}`, `{"a": 1}`, true},
		{"string is not a number", `{"a": 1}`, `{"a": "1"}`, false},
		{"array element matches scalar", `{"a": 2}`, `{"a": [1, 2, 3]}`, true},
		{"whole array matches array", `{"a": [1, 2]}`, `{"a": [1, 2]}`, true},
		{"array order matters", `{"a": [2, 1]}`, `{"a": [1, 2]}`, false},
		{"nested array element matches array", `{"a": [1, 2]}`, `{"a": [[1, 2], 3]}`, true},
		{"embedded document exact match", `{"a": {"b": 1, "c": 2}}`, `{"a": {"b": 1, "c": 2}}`, true},
		{"embedded document field order matters", `{"a": {"c": 2, "b": 1}}`, `{"a": {"b": 1, "c": 2}}`, false},
		{"embedded document is not a subset match", `{"a": {"b": 1}}`, `{"a": {"b": 1, "c": 2}}`, false},
		{"dotted path", `{"a.b": 1}`, `{"a": {"b": 1}}`, true},
		{"dotted path through array", `{"a.b": 1}`, `{"a": [{"b": 2}, {"b": 1}]}`, true},
		{"dotted path with index", `{"a.1.b": 1}`, `{"a": [{"b": 1}, {"b": 2}]}`, false},
		{"dotted path with index hit", `{"a.1.b": 2}`, `{"a": [{"b": 1}, {"b": 2}]}`, true},
		{"index on array of scalars", `{"a.0": 5}`, `{"a": [5, 6]}`, true},
		{"null matches missing field", `{"a": null}`, `{"b": 1}`, true},
		{"null matches null", `{"a": null}`, `{"a": null}`, true},
		{"null does not match a value", `{"a": null}`, `{"a": 0}`, false},
		{"null matches undefined", `{"a": null}`, `{"a": {"$undefined": true}}`, true},
		{"null matches missing subfield in array element", `{"a.b": null}`, `{"a": [{"b": 1}, {"c": 1}]}`, true},
		{"null does not match array of scalars on dotted path", `{"a.b": null}`, `{"a": [1, 2]}`, false},
		{"null matches null in array", `{"a": null}`, `{"a": [1, null]}`, true},
		{"null does not match empty array", `{"a": null}`, `{"a": []}`, false},
		{"null matches scalar on dotted path", `{"a.b": null}`, `{"a": 5}`, true},
		{"empty filter matches everything", `{}`, `{"a": 1}`, true},
		{"regex value matches string", `{"a": {"$regex": "^ab"}}`, `{"a": "abc"}`, true},
		{"bare regex", `{"a": {"$regularExpression": {"pattern": "B", "options": "i"}}}`, `{"a": "abc"}`, true},
		{"regex matches array element", `{"a": {"$regularExpression": {"pattern": "^x", "options": ""}}}`, `{"a": ["y", "xz"]}`, true},
		{"regex does not match number", `{"a": {"$regularExpression": {"pattern": "1", "options": ""}}}`, `{"a": 1}`, false},
		{"$eq with regex matches only the same regex value", `{"a": {"$eq": {"$regularExpression": {"pattern": "x", "options": ""}}}}`, `{"a": "x"}`, false},
		{"$eq with regex equal regex", `{"a": {"$eq": {"$regularExpression": {"pattern": "x", "options": ""}}}}`, `{"a": {"$regularExpression": {"pattern": "x", "options": ""}}}`, true},
		{"NaN equals NaN", `{"a": {"$numberDouble": "NaN"}}`, `{"a": {"$numberDouble": "NaN"}}`, true},
		{"DBRef-like document is equality", `{"a": {"$ref": "c", "$id": 1}}`, `{"a": {"$ref": "c", "$id": 1}}`, true},
		{"symbol equals string", `{"a": "x"}`, `{"a": {"$symbol": "x"}}`, true},
	})
}

func TestMatchComparison(t *testing.T) {
	runMatchCases(t, []matchCase{
		{"$gt numbers", `{"a": {"$gt": 5}}`, `{"a": 6}`, true},
		{"$gt equal is false", `{"a": {"$gt": 5}}`, `{"a": 5}`, false},
		{"$gte equal", `{"a": {"$gte": 5}}`, `{"a": 5.0}`, true},
		{"$lt across numeric types", `{"a": {"$lt": {"$numberDecimal": "5.5"}}}`, `{"a": 5}`, true},
		{"type bracketing: $gt number never matches string", `{"a": {"$gt": 5}}`, `{"a": "zzz"}`, false},
		{"type bracketing: $lt string never matches number", `{"a": {"$lt": "a"}}`, `{"a": 1}`, false},
		{"$gt on array: any element", `{"a": {"$gt": 5}}`, `{"a": [1, 10]}`, true},
		{"$gt and $lt are independent over array elements", `{"a": {"$gt": 5, "$lt": 3}}`, `{"a": [1, 10]}`, true},
		{"$gt missing is false", `{"a": {"$gt": 5}}`, `{}`, false},
		{"$gte null matches missing", `{"a": {"$gte": null}}`, `{}`, true},
		{"$lte null matches null", `{"a": {"$lte": null}}`, `{"a": null}`, true},
		{"$gt null matches nothing", `{"a": {"$gt": null}}`, `{"a": 1}`, false},
		{"$lt MinKey never", `{"a": {"$lt": {"$minKey": 1}}}`, `{"a": 1}`, false},
		{"$gt MinKey matches any type", `{"a": {"$gt": {"$minKey": 1}}}`, `{"a": "x"}`, true},
		{"$lt MaxKey matches any type", `{"a": {"$lt": {"$maxKey": 1}}}`, `{"a": {"b": 1}}`, true},
		{"NaN not greater", `{"a": {"$gt": 0}}`, `{"a": {"$numberDouble": "NaN"}}`, false},
		{"NaN not less", `{"a": {"$lt": 0}}`, `{"a": {"$numberDouble": "NaN"}}`, false},
		{"$gte NaN matches NaN", `{"a": {"$gte": {"$numberDouble": "NaN"}}}`, `{"a": {"$numberDouble": "NaN"}}`, true},
		{"dates compare", `{"a": {"$gt": {"$date": "2020-01-01T00:00:00Z"}}}`, `{"a": {"$date": "2021-01-01T00:00:00Z"}}`, true},
		{"date is not a number", `{"a": {"$gt": 0}}`, `{"a": {"$date": "2021-01-01T00:00:00Z"}}`, false},
		{"strings compare bytewise", `{"a": {"$gt": "B"}}`, `{"a": "a"}`, true},
		{"$gt array operand compares whole arrays", `{"a": {"$gt": [1]}}`, `{"a": [2]}`, true},
		{"$ne value", `{"a": {"$ne": 1}}`, `{"a": 2}`, true},
		{"$ne matches missing", `{"a": {"$ne": 1}}`, `{}`, true},
		{"$ne fails when any array element equals", `{"a": {"$ne": 1}}`, `{"a": [1, 2]}`, false},
		{"$ne null excludes missing", `{"a": {"$ne": null}}`, `{}`, false},
		{"$ne null matches value", `{"a": {"$ne": null}}`, `{"a": 0}`, true},
		{"$eq explicit", `{"a": {"$eq": 2}}`, `{"a": [1, 2]}`, true},
	})
}

func TestMatchInNin(t *testing.T) {
	runMatchCases(t, []matchCase{
		{"$in any value", `{"a": {"$in": [1, 2]}}`, `{"a": 2}`, true},
		{"$in none", `{"a": {"$in": [1, 2]}}`, `{"a": 3}`, false},
		{"$in array element", `{"a": {"$in": [5, 9]}}`, `{"a": [1, 9]}`, true},
		{"$in whole array", `{"a": {"$in": [[1, 2]]}}`, `{"a": [1, 2]}`, true},
		{"$in null matches missing", `{"a": {"$in": [null]}}`, `{}`, true},
		{"$in regex", `{"a": {"$in": [{"$regularExpression": {"pattern": "^x", "options": ""}}, 5]}}`, `{"a": "xy"}`, true},
		{"$in empty matches nothing", `{"a": {"$in": []}}`, `{"a": 1}`, false},
		{"$nin none present", `{"a": {"$nin": [1, 2]}}`, `{"a": 3}`, true},
		{"$nin missing matches", `{"a": {"$nin": [1, 2]}}`, `{}`, true},
		{"$nin fails on any array element", `{"a": {"$nin": [1]}}`, `{"a": [3, 1]}`, false},
		{"$nin null excludes missing", `{"a": {"$nin": [null]}}`, `{}`, false},
		{"$nin empty matches everything", `{"a": {"$nin": []}}`, `{"a": 1}`, true},
	})
}

func TestMatchLogical(t *testing.T) {
	runMatchCases(t, []matchCase{
		{"$and all", `{"$and": [{"a": 1}, {"b": 2}]}`, `{"a": 1, "b": 2}`, true},
		{"$and one fails", `{"$and": [{"a": 1}, {"b": 2}]}`, `{"a": 1, "b": 3}`, false},
		{"$or any", `{"$or": [{"a": 1}, {"b": 2}]}`, `{"a": 0, "b": 2}`, true},
		{"$or none", `{"$or": [{"a": 1}, {"b": 2}]}`, `{"a": 0}`, false},
		{"$nor none", `{"$nor": [{"a": 1}, {"b": 2}]}`, `{"a": 0}`, true},
		{"$nor one", `{"$nor": [{"a": 1}, {"b": 2}]}`, `{"a": 1}`, false},
		{"$not negates the whole path expression", `{"a": {"$not": {"$gt": 5}}}`, `{"a": [1, 10]}`, false},
		{"$not matches missing", `{"a": {"$not": {"$gt": 5}}}`, `{}`, true},
		{"$not regex", `{"a": {"$not": {"$regularExpression": {"pattern": "^x", "options": ""}}}}`, `{"a": "yx"}`, true},
		{"$not of a conjunction", `{"a": {"$not": {"$gt": 1, "$lt": 5}}}`, `{"a": 7}`, true},
		{"implicit and of fields", `{"a": 1, "b": {"$exists": false}}`, `{"a": 1}`, true},
		{"$comment ignored", `{"$comment": "hi", "a": 1}`, `{"a": 1}`, true},
		{"$alwaysFalse", `{"$alwaysFalse": 1}`, `{"a": 1}`, false},
		{"$alwaysTrue", `{"$alwaysTrue": 1}`, `{"a": 1}`, true},
	})
}

func TestMatchElementOperators(t *testing.T) {
	runMatchCases(t, []matchCase{
		{"$exists true", `{"a": {"$exists": true}}`, `{"a": null}`, true},
		{"$exists false", `{"a": {"$exists": false}}`, `{"b": 1}`, true},
		{"$exists numeric truthiness", `{"a": {"$exists": 0}}`, `{"a": 1}`, false},
		{"$exists on empty array", `{"a": {"$exists": true}}`, `{"a": []}`, true},
		{"$exists dotted through array", `{"a.b": {"$exists": true}}`, `{"a": [{"c": 1}, {"b": 1}]}`, true},
		{"$exists false dotted through array", `{"a.b": {"$exists": false}}`, `{"a": [1, 2]}`, true},
		{"$type by alias", `{"a": {"$type": "string"}}`, `{"a": "x"}`, true},
		{"$type by code", `{"a": {"$type": 16}}`, `{"a": 1}`, true},
		{"$type double code as double", `{"a": {"$type": 1.0}}`, `{"a": 1.5}`, true},
		{"$type number alias", `{"a": {"$type": "number"}}`, `{"a": {"$numberLong": "3"}}`, true},
		{"$type int is not long", `{"a": {"$type": "long"}}`, `{"a": 1}`, false},
		{"$type array matches the array", `{"a": {"$type": "array"}}`, `{"a": []}`, true},
		{"$type matches array elements", `{"a": {"$type": "string"}}`, `{"a": [1, "x"]}`, true},
		{"$type list", `{"a": {"$type": ["bool", "null"]}}`, `{"a": null}`, true},
		{"$type never matches missing", `{"a": {"$type": "null"}}`, `{}`, false},
		{"$type date", `{"a": {"$type": "date"}}`, `{"a": {"$date": "2021-01-01T00:00:00Z"}}`, true},
		{"$type minKey", `{"a": {"$type": -1}}`, `{"a": {"$minKey": 1}}`, true},
		{"$mod", `{"a": {"$mod": [4, 1]}}`, `{"a": 9}`, true},
		{"$mod truncates doubles", `{"a": {"$mod": [4, 1]}}`, `{"a": 9.9}`, true},
		{"$mod negative dividend", `{"a": {"$mod": [4, -1]}}`, `{"a": -9}`, true},
		{"$mod ignores strings", `{"a": {"$mod": [4, 1]}}`, `{"a": "9"}`, false},
		{"$mod NaN never", `{"a": {"$mod": [4, 0]}}`, `{"a": {"$numberDouble": "NaN"}}`, false},
		{"$mod divisor -1", `{"a": {"$mod": [-1, 0]}}`, `{"a": {"$numberLong": "-9223372036854775808"}}`, true},
		{"$regex with $options i", `{"a": {"$regex": "ABC", "$options": "i"}}`, `{"a": "xabc"}`, true},
		{"$regex m option", `{"a": {"$regex": "^b", "$options": "m"}}`, `{"a": "a\nb"}`, true},
		{"$regex without m", `{"a": {"$regex": "^b"}}`, `{"a": "a\nb"}`, false},
		{"$regex s option", `{"a": {"$regex": "a.b", "$options": "s"}}`, `{"a": "a\nb"}`, true},
		{"$regex x option", `{"a": {"$regex": "a b # comment\n c", "$options": "x"}}`, `{"a": "abc"}`, true},
		{"$options before $regex", `{"a": {"$options": "i", "$regex": "X"}}`, `{"a": "x"}`, true},
		{"$regex regex value", `{"a": {"$regex": {"$regularExpression": {"pattern": "X", "options": "i"}}}}`, `{"a": "x"}`, true},
		{"$regex matches symbol", `{"a": {"$regex": "x"}}`, `{"a": {"$symbol": "x"}}`, true},
		{"$bitsAllSet number", `{"a": {"$bitsAllSet": 5}}`, `{"a": 7}`, true},
		{"$bitsAllSet positions", `{"a": {"$bitsAllSet": [0, 3]}}`, `{"a": 8}`, false},
		{"$bitsAnyClear", `{"a": {"$bitsAnyClear": [1]}}`, `{"a": 5}`, true},
		{"$bitsAllClear negative sign-extends", `{"a": {"$bitsAllClear": [70]}}`, `{"a": -1}`, false},
		{"$bitsAnySet fractional never", `{"a": {"$bitsAnySet": 1}}`, `{"a": 1.5}`, false},
	})
}

func TestMatchArrayOperators(t *testing.T) {
	runMatchCases(t, []matchCase{
		{"$size exact", `{"a": {"$size": 2}}`, `{"a": [1, 2]}`, true},
		{"$size mismatch", `{"a": {"$size": 1}}`, `{"a": [1, 2]}`, false},
		{"$size does not look into nested arrays", `{"a": {"$size": 2}}`, `{"a": [[1, 2]]}`, false},
		{"$size zero on empty", `{"a": {"$size": 0}}`, `{"a": []}`, true},
		{"$size not array", `{"a": {"$size": 0}}`, `{"a": 1}`, false},
		{"$size through array of documents", `{"a.b": {"$size": 1}}`, `{"a": [{"b": [1]}]}`, true},
		{"$size whole double", `{"a": {"$size": 2.0}}`, `{"a": [1, 2]}`, true},
		{"$all subset", `{"a": {"$all": [1, 3]}}`, `{"a": [1, 2, 3]}`, true},
		{"$all missing one", `{"a": {"$all": [1, 4]}}`, `{"a": [1, 2, 3]}`, false},
		{"$all on scalar", `{"a": {"$all": [1]}}`, `{"a": 1}`, true},
		{"$all empty matches nothing", `{"a": {"$all": []}}`, `{"a": [1]}`, false},
		{"$all array operand", `{"a": {"$all": [[1, 2]]}}`, `{"a": [[1, 2], 3]}`, true},
		{"$all regex", `{"a": {"$all": [{"$regularExpression": {"pattern": "^a", "options": ""}}]}}`, `{"a": ["b", "ab"]}`, true},
		{"$all with $elemMatch", `{"a": {"$all": [{"$elemMatch": {"x": 1}}, {"$elemMatch": {"y": 2}}]}}`, `{"a": [{"x": 1}, {"y": 2}]}`, true},
		{"$all with $elemMatch fails", `{"a": {"$all": [{"$elemMatch": {"x": 1}}, {"$elemMatch": {"y": 3}}]}}`, `{"a": [{"x": 1}, {"y": 2}]}`, false},
		{"$elemMatch object: same element", `{"a": {"$elemMatch": {"x": 1, "y": 2}}}`, `{"a": [{"x": 1}, {"y": 2}]}`, false},
		{"$elemMatch object hit", `{"a": {"$elemMatch": {"x": 1, "y": 2}}}`, `{"a": [{"x": 1, "y": 2}]}`, true},
		{"$elemMatch value: one element satisfies all", `{"a": {"$elemMatch": {"$gt": 5, "$lt": 8}}}`, `{"a": [1, 10]}`, false},
		{"$elemMatch value hit", `{"a": {"$elemMatch": {"$gt": 5, "$lt": 8}}}`, `{"a": [1, 6]}`, true},
		{"$elemMatch not array", `{"a": {"$elemMatch": {"$gt": 5}}}`, `{"a": 6}`, false},
		{"$elemMatch value $ne", `{"a": {"$elemMatch": {"$ne": 1}}}`, `{"a": [1, 2]}`, true},
		{"$elemMatch nested arrays read as documents", `{"a": {"$elemMatch": {"0": 1}}}`, `{"a": [[1]]}`, true},
		{"$elemMatch with $or", `{"a": {"$elemMatch": {"$or": [{"x": 1}, {"x": 2}]}}}`, `{"a": [{"x": 2}]}`, true},
		{"$elemMatch empty matches any document element", `{"a": {"$elemMatch": {}}}`, `{"a": [1, {}]}`, true},
		{"$elemMatch empty ignores scalars", `{"a": {"$elemMatch": {}}}`, `{"a": [1]}`, false},
	})
}

type errCase struct {
	rule   string
	filter string
	code   mongoerr.Code
	msg    string
}

func TestParseFilterErrors(t *testing.T) {
	cases := []errCase{
		{"unknown field operator", `{"a": {"$foo": 1}}`, 2, "unknown operator: $foo"},
		{"unknown top level operator", `{"$foo": 1}`, 2, "unknown top level operator: $foo. If you have a field name that starts with a '$' symbol, consider using $getField or $setField."},
		{"top-level $not", `{"$not": {"a": 1}}`, 2, "unknown top level operator: $not. If you are trying to negate an entire expression, use $nor."},
		{"$and needs array", `{"$and": {"a": 1}}`, 2, "$and must be an array"},
		{"$or needs array", `{"$or": 1}`, 2, "$or must be an array"},
		{"$nor nonempty", `{"$nor": []}`, 2, "$and/$or/$nor must be a nonempty array"},
		{"$and entries objects", `{"$and": [1]}`, 2, "$or/$and/$nor entries need to be full objects"},
		{"$in needs array", `{"a": {"$in": 1}}`, 2, "$in needs an array"},
		{"$nin needs array", `{"a": {"$nin": {}}}`, 2, "$nin needs an array"},
		{"no operators in $in", `{"a": {"$in": [{"$gt": 1}]}}`, 2, "cannot nest $ under $in"},
		{"regex in $gt", `{"a": {"$gt": {"$regularExpression": {"pattern": "x", "options": ""}}}}`, 2, "Can't have RegEx as arg to predicate over field 'a'."},
		{"regex in $ne", `{"a": {"$ne": {"$regularExpression": {"pattern": "x", "options": ""}}}}`, 2, "Can't have regex as arg to $ne."},
		{"$size needs number", `{"a": {"$size": {"$gt": 1}}}`, 2, "$size needs a number"},
		{"$size whole", `{"a": {"$size": 2.5}}`, 2, "$size must be a whole number"},
		{"$size negative", `{"a": {"$size": -1}}`, 2, "$size may not be negative"},
		{"$size int64 range", `{"a": {"$size": {"$numberLong": "9999999999"}}}`, 2, "$size must be representable as a 32-bit integer"},
		{"$type bad alias", `{"a": {"$type": "foo"}}`, 2, "Unknown type name alias: foo"},
		{"$type bad code", `{"a": {"$type": 100}}`, 2, "Invalid numerical type code: 100"},
		{"$type zero", `{"a": {"$type": 0}}`, 2, "Invalid numerical type code: 0. Instead use {$exists:false}."},
		{"$type fractional", `{"a": {"$type": 2.5}}`, 2, "Invalid numerical type code: 2.5"},
		{"$type wrong type", `{"a": {"$type": true}}`, 14, "type must be represented as a number or a string"},
		{"$type empty", `{"a": {"$type": []}}`, 9, "$type must match at least one type"},
		{"$type missing", `{"a": {"$type": "missing"}}`, 2, "'missing' is not a legal type name. To query for non-existence of a field, use {$exists:false}."},
		{"$regex type", `{"a": {"$regex": 1}}`, 2, "$regex has to be a string"},
		{"$options type", `{"a": {"$regex": "x", "$options": 1}}`, 2, "$options has to be a string"},
		{"$options alone", `{"a": {"$options": "i"}}`, 2, "$options needs a $regex"},
		{"options twice", `{"a": {"$regex": {"$regularExpression": {"pattern": "x", "options": "i"}}, "$options": "m"}}`, 51075, "options set in both $regex and $options"},
		{"bad regex flag", `{"a": {"$regex": "x", "$options": "z"}}`, 51108, "invalid flag in regex options: z"},
		{"invalid regex", `{"a": {"$regex": "("}}`, 51091, "Regular expression is invalid: missing closing ): `(`"},
		{"$mod array", `{"a": {"$mod": 1}}`, 2, "malformed mod, needs to be an array"},
		{"$mod few", `{"a": {"$mod": [1]}}`, 2, "malformed mod, not enough elements"},
		{"$mod many", `{"a": {"$mod": [1, 2, 3]}}`, 2, "malformed mod, too many elements"},
		{"$mod divisor type", `{"a": {"$mod": ["1", 2]}}`, 2, "malformed mod, divisor not a number"},
		{"$mod remainder type", `{"a": {"$mod": [1, "2"]}}`, 2, "malformed mod, remainder not a number"},
		{"$mod zero", `{"a": {"$mod": [0, 1]}}`, 2, "divisor cannot be 0"},
		{"$mod NaN", `{"a": {"$mod": [{"$numberDouble": "NaN"}, 1]}}`, 2, "malformed mod, divisor value is invalid :: caused by :: Unable to coerce NaN/Inf to integral type"},
		{"$mod huge", `{"a": {"$mod": [1e300, 1]}}`, 2, "malformed mod, divisor value is invalid :: caused by :: Out of bounds coercing to integral value"},
		{"$all needs array", `{"a": {"$all": 1}}`, 2, "$all needs an array"},
		{"$all consistent", `{"a": {"$all": [{"$elemMatch": {"b": 1}}, 1]}}`, 2, "$all/$elemMatch has to be consistent"},
		{"$all no operators", `{"a": {"$all": [{"$gt": 1}]}}`, 2, "no $ expressions in $all"},
		{"$elemMatch object", `{"a": {"$elemMatch": 1}}`, 2, "$elemMatch needs an Object"},
		{"$not type", `{"a": {"$not": 1}}`, 2, "$not needs a regex or a document"},
		{"$not empty", `{"a": {"$not": {}}}`, 2, "$not cannot be empty"},
		{"$not non-operator", `{"a": {"$not": {"b": 1}}}`, 2, "unknown operator: b"},
		{"operator doc with plain field", `{"a": {"$gt": 1, "b": 1}}`, 2, "unknown operator: b"},
		{"$expr needs compiler", `{"$expr": {"$eq": ["$a", 1]}}`, 224, "$expr is not allowed in this context"},
		{"$expr in $elemMatch", `{"a": {"$elemMatch": {"$expr": true}}}`, 2, "$expr can only be applied to the top-level document"},
		{"undefined in $in", `{"a": {"$in": [{"$undefined": true}]}}`, 2, "InMatchExpression equality cannot be undefined"},
		{"undefined comparison", `{"a": {"$undefined": true}}`, 2, "cannot compare to undefined"},
		{"$alwaysTrue argument", `{"$alwaysTrue": 2}`, 9, "$alwaysTrue must be an integer value of 1"},
		{"$where", `{"$where": "true"}`, 238, "$where is not supported"},
		{"$text", `{"$text": {"$search": "x"}}`, 27, "text index required for $text query"},
		{"$comment at field level", `{"a": {"$comment": "x"}}`, 2, "unknown operator: $comment"},
	}
	for _, c := range cases {
		t.Run(c.rule, func(t *testing.T) {
			_, err := ParseFilter(doc(t, c.filter))
			assertMongoErr(t, err, c.code, c.msg)
		})
	}
}

func assertMongoErr(t *testing.T, err error, code mongoerr.Code, msg string) {
	t.Helper()
	if err == nil {
		t.Fatalf("got no error, want %d %q", code, msg)
	}
	var me *mongoerr.Error
	if !errors.As(err, &me) {
		t.Fatalf("error %v is not a *mongoerr.Error", err)
	}
	if me.Code != code || me.Message != msg {
		t.Errorf("got %d %q, want %d %q", me.Code, me.Message, code, msg)
	}
}

func TestEvalPositional(t *testing.T) {
	// Rule: the positional $ refers to the element of the first traversed
	// array that made the top-level conjunction match (elemMatchKey).
	cases := []struct {
		filter, doc string
		matched     bool
		index       int
	}{
		{`{"a": 5}`, `{"a": [1, 5, 9]}`, true, 1},
		{`{"a.b": 2}`, `{"a": [{"b": 1}, {"b": 2}]}`, true, 1},
		{`{"a": {"$gt": 3}}`, `{"a": [1, 5, 9]}`, true, 1},
		{`{"a": {"$elemMatch": {"b": 2}}}`, `{"a": [{"b": 1}, {"b": 2}]}`, true, 1},
		{`{"a": 1}`, `{"a": 1}`, true, -1},
		{`{"a": [1, 2]}`, `{"a": [1, 2]}`, true, -1},
		{`{"x": 1, "a.b": 2}`, `{"x": 1, "a": [{"b": 2}]}`, true, 0},
		{`{"$or": [{"a": 5}]}`, `{"a": [1, 5]}`, true, -1},
		{`{"a": 7}`, `{"a": [1, 5]}`, false, -1},
		{`{"a.b": {"$elemMatch": {"$gt": 1}}}`, `{"a": [{"b": [0]}, {"b": [0, 3]}]}`, true, 1},
	}
	for _, c := range cases {
		f, err := ParseFilter(doc(t, c.filter))
		if err != nil {
			t.Fatal(err)
		}
		r, err := f.Eval(doc(t, c.doc))
		if err != nil {
			t.Fatal(err)
		}
		if r.Matched != c.matched || r.ArrayIndex != c.index {
			t.Errorf("Eval(%s, %s) = %+v, want matched %v index %d", c.filter, c.doc, r, c.matched, c.index)
		}
	}
}

func TestExprHook(t *testing.T) {
	// Rule: $expr is delegated to the injected aggregation compiler and its
	// runtime errors surface from Eval.
	compiled := 0
	opts := ParseOptions{Expr: func(expr any) (func(bson.D) (bool, error), error) {
		compiled++
		want, _ := AsDocument(expr)
		return func(d bson.D) (bool, error) {
			if _, ok := Field(d, "boom"); ok {
				return false, mongoerr.New(mongoerr.BadValue, "boom")
			}
			return Equal(d, want), nil
		}, nil
	}}
	f, err := ParseFilterWith(doc(t, `{"$and": [{"$expr": {"a": 1}}]}`), opts)
	if err != nil {
		t.Fatal(err)
	}
	if compiled != 1 {
		t.Fatalf("compiled %d times", compiled)
	}
	if !f.Match(doc(t, `{"a": 1}`)) || f.Match(doc(t, `{"a": 2}`)) {
		t.Fatal("$expr result not used")
	}
	if _, err := f.Eval(doc(t, `{"boom": 1}`)); err == nil || err.Error() != "boom" {
		t.Fatalf("Eval error = %v, want boom", err)
	}
	if f.Match(doc(t, `{"boom": 1}`)) {
		t.Fatal("Match with an $expr error must be false")
	}
}
